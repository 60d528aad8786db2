import {
  BadRequestError,
  ForbiddenError,
  InvalidUrnError,
  NotFoundError,
  parseUrn,
  urnLengthProblem,
  type AspectSpec,
  type EntityRegistry,
  type EntitySpec,
  type JsonObject,
  type Urn,
  SYSTEM_ACTOR_URN,
} from '@strata/model';
import type { AspectStore, StoredAspect } from '@strata/store';

/** An aspect as read: its latest stored version, or the key aspect derived from the URN of an entity never written. */
export interface ReadAspect {
  readonly spec: AspectSpec;
  readonly version: number;
  readonly value: JsonObject;
  readonly systemMetadata: JsonObject | undefined;
  readonly created: { readonly time: number; readonly actor: string } | undefined;
}

/** A URN from a request, known to name an entity of the registry, with the key it stands for. */
export interface ResolvedUrn {
  readonly urn: Urn;
  readonly entity: EntitySpec;
  readonly key: JsonObject;
}

export interface ReadEntity {
  readonly urn: Urn;
  readonly entity: EntitySpec;
  /** Key aspect first, then the others in the registry's order. */
  readonly aspects: readonly ReadAspect[];
}

/** An entity read at the versions a version stamp names (see {@link EntityReader.getEntityAtVersions}). */
export interface ReadVersionedEntity extends ReadEntity {
  /** The version each aspect read answers, by aspect name, numbered as DataHub does: 0 the latest, N an earlier one. */
  readonly versions: ReadonlyMap<string, number>;
}

/**
 * Aspects that hold secrets — a native user's password hash, a secret's value — which no read returns: an entity read
 * leaves them out, even when asked for by name, and a read of one of their versions is refused.
 */
export const SECRET_ASPECTS: ReadonlySet<string> = new Set(['corpUserCredentials', 'dataHubSecretValue']);

/**
 * Reads entities and aspect versions from the primary store. Like DataHub, an entity read always includes the key
 * aspect — derived from the URN when nothing was ever written — so an unknown URN reads as its key alone.
 */
export class EntityReader {
  constructor(
    private readonly store: AspectStore,
    private readonly registry: EntityRegistry,
    /** The time stamped on the key aspect of an entity never written, as DataHub stamps it when it derives one. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The entity of a URN (text, or already {@link resolve}d). */
  async getEntity(urnOrText: string | ResolvedUrn, aspectNames?: readonly string[]): Promise<ReadEntity> {
    const { urn, entity, key } = typeof urnOrText === 'string' ? this.resolve(urnOrText) : urnOrText;
    const requested = aspectNames?.map((name) => this.aspectOf(entity, name));
    const versioned = (requested ?? entity.aspects)
      .filter((spec) => spec.kind === 'versioned' && !SECRET_ASPECTS.has(spec.name))
      .map((spec) => spec.name);
    const rows = await this.store.getEntity(urn.toString(), versioned);
    const byName = new Map(rows.map((row) => [row.aspect, row]));
    const aspects: ReadAspect[] = [];
    const keyRow = byName.get(entity.keyAspect.name);
    aspects.push(keyRow ? readAspect(entity.keyAspect, keyRow) : this.derivedKey({ urn, entity, key }));
    for (const spec of entity.aspects) {
      const row = byName.get(spec.name);
      if (row && !spec.isKey) aspects.push(readAspect(spec, row));
    }
    return { urn, entity, aspects };
  }

  /**
   * An entity at the versions `stamp` names (DataHub's versioned batch get): with a stamp, only the aspects of
   * `aspectNames` it names, each at its version — 0 the latest, N ≥ 1 that ordinal of the earlier versions (the
   * latest's own ordinal is none, as in {@link getVersion}), a version never written left out; without one, every
   * aspect of `aspectNames` at its latest. The key aspect is always there, derived from the URN when not read.
   * Aspects that hold secrets are never read.
   */
  async getEntityAtVersions(
    resolved: ResolvedUrn,
    aspectNames: readonly string[],
    stamp: ReadonlyMap<string, number>,
  ): Promise<ReadVersionedEntity> {
    const { urn, entity } = resolved;
    const wanted = aspectNames
      .map((name) => this.aspectOf(entity, name))
      .filter((spec) => spec.kind === 'versioned' && !SECRET_ASPECTS.has(spec.name));
    const found = new Map<string, { row: StoredAspect; version: number }>();
    if (stamp.size === 0) {
      const rows = await this.store.getEntity(
        urn.toString(),
        wanted.map((spec) => spec.name),
      );
      for (const row of rows) found.set(row.aspect, { row, version: 0 });
    } else {
      for (const spec of wanted) {
        const version = stamp.get(spec.name);
        if (version === undefined) continue;
        const row = await this.storedVersion(urn.toString(), spec.name, version);
        if (row !== undefined) found.set(spec.name, { row, version });
      }
    }
    const versions = new Map<string, number>();
    const aspects: ReadAspect[] = [];
    const key = found.get(entity.keyAspect.name);
    aspects.push(key === undefined ? this.derivedKey(resolved) : readAspect(entity.keyAspect, key.row));
    versions.set(entity.keyAspect.name, key?.version ?? 0);
    for (const spec of entity.aspects) {
      const read = found.get(spec.name);
      if (read === undefined || spec.isKey) continue;
      aspects.push(readAspect(spec, read.row));
      versions.set(spec.name, read.version);
    }
    return { urn, entity, aspects, versions };
  }

  /**
   * One version of an aspect: 0 is the latest, N ≥ 1 that ordinal of the earlier versions (the latest's own ordinal is
   * not one: DataHub stores the latest as version 0 only), and a negative number counts back from the latest
   * historical version (-1 is the one before the latest), as DataHub does. NotFoundError when there is none.
   */
  async getVersion(urnText: string, aspectName: string, version: number): Promise<ReadAspect & { requested: number }> {
    const { urn, entity } = this.resolve(urnText);
    const spec = this.aspectOf(entity, aspectName);
    if (SECRET_ASPECTS.has(spec.name)) {
      throw new ForbiddenError(`Aspect ${spec.name} holds a secret and is never returned by reads`);
    }
    if (spec.kind === 'timeseries') {
      throw new BadRequestError(`Aspect ${aspectName} is a timeseries aspect; read it with getTimeseriesAspectValues`);
    }
    const notFound = () => new NotFoundError(`No version ${version} of aspect ${aspectName} for ${urn.toString()}`);
    let ordinal = version;
    if (version < 0) {
      const latest = await this.store.getVersion(urn.toString(), aspectName, 0);
      ordinal = latest ? latest.version + version : 0;
      if (ordinal < 1) throw notFound();
    }
    const row = await this.store.getVersion(urn.toString(), aspectName, ordinal);
    if (!row) throw notFound();
    // DataHub keeps the latest value as version 0 only: its own ordinal names no stored row (ADR 3).
    if (version > 0 && (await this.store.getVersion(urn.toString(), aspectName, 0))?.version === ordinal) {
      throw notFound();
    }
    return { ...readAspect(spec, row), requested: version < 0 ? ordinal : version };
  }

  /**
   * Reads a URN from a request. Throws {@link BadRequestError} when it does not parse, is too long to be written (so
   * could never have been), names an unknown entity type, or does not fit its entity's key.
   */
  resolve(urnText: string): ResolvedUrn {
    try {
      const urn = parseUrn(urnText);
      const tooLong = urnLengthProblem(urn);
      if (tooLong !== undefined) throw new BadRequestError(tooLong);
      const entity = this.registry.entity(urn.entityType);
      if (!entity) throw new BadRequestError(`Unknown entity type ${urn.entityType} in URN ${urnText}`);
      return { urn, entity, key: entity.keyFromUrn(urn) };
    } catch (error) {
      if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
      throw error;
    }
  }

  /** The stored row DataHub keeps under `version` (0 the latest; the latest's own ordinal names none). */
  private async storedVersion(urn: string, aspect: string, version: number): Promise<StoredAspect | undefined> {
    if (!Number.isSafeInteger(version) || version < 0) return undefined;
    const row = await this.store.getVersion(urn, aspect, version);
    if (row === undefined || version === 0) return row;
    return (await this.store.getVersion(urn, aspect, 0))?.version === version ? undefined : row;
  }

  /** The key aspect of an entity never written, derived from its URN. */
  private derivedKey({ entity, key }: ResolvedUrn): ReadAspect {
    return {
      spec: entity.keyAspect,
      version: 0,
      value: key,
      systemMetadata: undefined,
      created: { time: this.now(), actor: SYSTEM_ACTOR_URN },
    };
  }

  /** The entity type of that name; {@link BadRequestError} when the registry has none. */
  entityType(name: string): EntitySpec {
    const entity = this.registry.entity(name);
    if (!entity) throw new BadRequestError(`Unknown entity type: ${name}`);
    return entity;
  }

  /** The aspect of that name of an entity type; {@link BadRequestError} in DataHub's words when it has none. */
  aspectOf(entity: EntitySpec, name: string): AspectSpec {
    const spec = entity.aspect(name);
    if (!spec) throw new BadRequestError(`Unknown aspect ${name} for entity ${entity.name}`);
    return spec;
  }
}

function readAspect(
  spec: AspectSpec,
  row: { version: number; value: JsonObject; systemMetadata: JsonObject; createdOn: number; createdBy: string },
): ReadAspect {
  return {
    spec,
    version: row.version,
    value: row.value,
    systemMetadata: row.systemMetadata,
    created: { time: row.createdOn, actor: row.createdBy },
  };
}
