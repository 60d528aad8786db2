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
import type { AspectStore } from '@strata/store';

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
    aspects.push(
      keyRow
        ? readAspect(entity.keyAspect, keyRow)
        : {
            spec: entity.keyAspect,
            version: 0,
            value: key,
            systemMetadata: undefined,
            created: { time: this.now(), actor: SYSTEM_ACTOR_URN },
          },
    );
    for (const spec of entity.aspects) {
      const row = byName.get(spec.name);
      if (row && !spec.isKey) aspects.push(readAspect(spec, row));
    }
    return { urn, entity, aspects };
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

  private aspectOf(entity: EntitySpec, name: string): AspectSpec {
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
