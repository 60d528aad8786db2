import { z } from 'zod';
import { CONDITIONS, type Criterion, type Filter } from './search-index';

/** DataHub's `Criterion`: `value` (its older form) or `values` (current DataHub's), `condition` EQUAL by default. */
export const criterionSchema = z
  .object({
    field: z.string().min(1),
    value: z.string().optional(),
    values: z.array(z.string()).optional(),
    condition: z
      .string()
      .default('EQUAL')
      .refine((condition) => (CONDITIONS as readonly string[]).includes(condition), {
        error: (issue) => `Unsupported condition: ${String(issue.input)} (one of ${CONDITIONS.join(', ')})`,
      }),
    negated: z.boolean().default(false),
  })
  .transform((criterion): Criterion => ({
    field: criterion.field,
    values: criterion.values ?? (criterion.value === undefined ? [] : [criterion.value]),
    condition: criterion.condition as Criterion['condition'],
    negated: criterion.negated,
  }));

/** DataHub's `Filter`: `or` of `{and}` groups, or the deprecated `criteria` (one AND group). */
export const filterSchema = z
  .object({
    or: z.array(z.object({ and: z.array(criterionSchema) })).optional(),
    criteria: z.array(criterionSchema).optional(),
  })
  .strict()
  .transform((filter): Filter => [
    ...(filter.or ?? []).map((group) => group.and),
    ...(filter.criteria === undefined || filter.criteria.length === 0 ? [] : [filter.criteria]),
  ]);
