import { z } from 'zod';

/** Raised at start-up when the environment does not satisfy a service's config schema; lists every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a service's configuration from environment variables. The schema's keys are the variable names; each key's
 * `.describe()` documents it and its `.default()` is the value when unset. Empty strings count as unset.
 */
export function loadConfig<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  env: Readonly<Record<string, string | undefined>>,
): z.infer<z.ZodObject<Shape>> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return result.data;
}

/** One row per key, for `--help` output and documentation. */
export function describeConfig(schema: z.ZodObject): { name: string; description: string; defaultValue: string }[] {
  return Object.entries(schema.shape).map(([name, type]) => {
    const parsed = (type as z.ZodType).safeParse(undefined);
    return {
      name,
      description: (type as z.ZodType).description ?? '',
      defaultValue: parsed.success && parsed.data !== undefined ? JSON.stringify(parsed.data) : '(required or unset)',
    };
  });
}

/** A Markdown table of every key: name, default, description (the source of `docs/configuration.md`). */
export function renderConfigReference(schema: z.ZodObject): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const rows = describeConfig(schema).map(
    ({ name, defaultValue, description }) => `| \`${name}\` | \`${escape(defaultValue)}\` | ${escape(description)} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Common value types for environment variables. */
export const env = {
  /** `true`/`false` (also 1/0, yes/no). */
  boolean: () =>
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((value) => ['true', 'false', '1', '0', 'yes', 'no'].includes(value), 'must be true or false')
      .transform((value) => ['true', '1', 'yes'].includes(value)),
  /** A whole number within bounds. */
  integer: (min: number, max: number) => z.coerce.number().int().min(min).max(max),
  /** A TCP port; 0 picks a free port. */
  port: () => z.coerce.number().int().min(0).max(65535),
};
