import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';

import type { GroupPosition, LogRecord, OutgoingRecord, TopicRead } from './message-log';

/** The tables of the log file. */
const LOG_SCHEMA = `
  CREATE TABLE IF NOT EXISTS log_topic (
    topic TEXT PRIMARY KEY,
    partitions INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS log_record (
    topic TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" INTEGER NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    headers TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    UNIQUE (topic, "partition", "offset")
  );
  CREATE TABLE IF NOT EXISTS log_group_position (
    group_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    next_offset INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, "partition")
  ) WITHOUT ROWID;
`;

/** A group's position in one partition: the offset of the next record to deliver. */
export interface PartitionPosition {
  readonly topic: string;
  readonly partition: number;
  nextOffset: number;
}

interface RecordRow {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: string;
  readonly timestamp: number;
}

/** Every SQL statement of the log, over one connection. Every method is synchronous and its transaction short. */
export class LogTables {
  private readonly db: Database.Database;
  /** Partition counts never change once stored, so they can be remembered. */
  private readonly partitionCounts = new Map<string, number>();
  private readonly statements;
  private readonly appendTransaction;
  private readonly resolveTransaction;
  private readonly positionsTransaction;
  private readonly startsTransaction;
  private readonly readTransaction;

  constructor(path: string, settings: { busyTimeoutMs: number; synchronous: 'NORMAL' | 'FULL' }) {
    const db = openDatabase(path, { ...settings, schema: LOG_SCHEMA });
    this.db = db;
    this.statements = {
      selectPartitions: db.prepare<[string], { partitions: number }>(
        'SELECT partitions FROM log_topic WHERE topic = ?',
      ),
      insertTopic: db.prepare<[string, number, number]>(
        'INSERT OR IGNORE INTO log_topic (topic, partitions, created_at) VALUES (?, ?, ?)',
      ),
      selectStart: db.prepare<[string, number], { start: number | null }>(
        'SELECT MIN("offset") AS "start" FROM log_record WHERE topic = ? AND "partition" = ?',
      ),
      selectEnd: db.prepare<[string, number], { end: number }>(
        'SELECT COALESCE(MAX("offset") + 1, 0) AS "end" FROM log_record WHERE topic = ? AND "partition" = ?',
      ),
      insertRecord: db.prepare<[string, number, number, string, Buffer, string, number]>(
        'INSERT INTO log_record (topic, "partition", "offset", key, value, headers, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      selectFirstAt: db.prepare<[string, number, number], { offset: number | null }>(
        'SELECT MIN("offset") AS "offset" FROM log_record WHERE topic = ? AND "partition" = ? AND timestamp >= ?',
      ),
      selectBatch: db.prepare<[string, number, number, number], RecordRow>(
        `SELECT topic, "partition" AS "partition", "offset" AS "offset", key, value, headers, timestamp
         FROM log_record WHERE topic = ? AND "partition" = ? AND "offset" >= ? ORDER BY "offset" LIMIT ?`,
      ),
      selectPosition: db.prepare<[string, string, number], { nextOffset: number }>(
        'SELECT next_offset AS nextOffset FROM log_group_position WHERE group_id = ? AND topic = ? AND "partition" = ?',
      ),
      insertPosition: db.prepare<[string, string, number, number]>(
        'INSERT OR IGNORE INTO log_group_position (group_id, topic, "partition", next_offset) VALUES (?, ?, ?, ?)',
      ),
      updatePosition: db.prepare<[number, string, string, number, number]>(
        `UPDATE log_group_position SET next_offset = ?
         WHERE group_id = ? AND topic = ? AND "partition" = ? AND next_offset = ?`,
      ),
    };

    this.appendTransaction = db.transaction(
      (records: readonly OutgoingRecord[], timestamp: number, defaultPartitions: number): Set<string> => {
        const topics = new Set<string>();
        // Offsets handed out in this transaction, so that several records of one partition get consecutive offsets.
        const ends = new Map<string, number>();
        for (const record of records) {
          if (record.topic === '') throw new Error('publish: topic must not be empty');
          const partitions = this.ensureTopic(record.topic, defaultPartitions, timestamp);
          const partition = partitionForKey(record.key, partitions);
          const slot = `${partition}:${record.topic}`;
          const offset = ends.get(slot) ?? this.endOffset(record.topic, partition);
          ends.set(slot, offset + 1);
          this.statements.insertRecord.run(
            record.topic,
            partition,
            offset,
            record.key,
            record.value,
            JSON.stringify(record.headers ?? {}),
            timestamp,
          );
          topics.add(record.topic);
        }
        return topics;
      },
    );

    this.resolveTransaction = db.transaction(
      (
        groupId: string,
        topics: readonly string[],
        fromBeginning: boolean,
        defaultPartitions: number,
        now: number,
      ): PartitionPosition[] => {
        const positions: PartitionPosition[] = [];
        for (const topic of topics) {
          // Subscribing creates the topic, as Kafka's auto-creation does, so its partitions are known from now on.
          const partitions = this.ensureTopic(topic, defaultPartitions, now);
          for (let partition = 0; partition < partitions; partition += 1) {
            // A position is stored at once, even when nothing was consumed yet: with fromBeginning false, records
            // published after subscribe() resolved must still be delivered after a restart.
            const start = fromBeginning ? 0 : this.endOffset(topic, partition);
            this.statements.insertPosition.run(groupId, topic, partition, start);
            positions.push({ topic, partition, nextOffset: this.readPosition(groupId, topic, partition) });
          }
        }
        return positions;
      },
    );

    this.startsTransaction = db.transaction((topic: string, from: TopicRead['from']): Map<number, number> => {
      const starts = new Map<number, number>();
      const partitions = this.statements.selectPartitions.get(topic)?.partitions ?? 0;
      for (let partition = 0; partition < partitions; partition += 1) {
        const end = this.endOffset(topic, partition);
        const earliest = this.statements.selectStart.get(topic, partition)?.start ?? end;
        if (from.kind === 'end') starts.set(partition, end);
        else if (from.kind === 'time') {
          starts.set(partition, this.statements.selectFirstAt.get(topic, partition, from.timestamp)?.offset ?? end);
        } else {
          const given = from.offsets.get(partition);
          const offset = given === undefined ? earliest : Number(given);
          starts.set(partition, Math.min(Math.max(Number.isSafeInteger(offset) ? offset : end, earliest), end));
        }
      }
      return starts;
    });

    this.readTransaction = db.transaction((topic: string, starts: ReadonlyMap<number, number>, limit: number) => {
      const partitions = this.statements.selectPartitions.get(topic)?.partitions ?? 0;
      const next = new Map<number, number>();
      const heads: LogRecord[][] = [];
      for (let partition = 0; partition < partitions; partition += 1) {
        const start = starts.get(partition) ?? this.statements.selectStart.get(topic, partition)?.start ?? 0;
        next.set(partition, start);
        heads.push(this.readBatch(topic, partition, start, limit));
      }
      // Merged by append time (then partition), each partition in its own order, until `limit`.
      const records: LogRecord[] = [];
      const cursors = heads.map(() => 0);
      while (records.length < limit) {
        let chosen: number | undefined;
        heads.forEach((head, index) => {
          const candidate = head[cursors[index] ?? 0];
          const best = chosen === undefined ? undefined : heads[chosen]?.[cursors[chosen] ?? 0];
          if (candidate !== undefined && (best === undefined || candidate.timestamp < best.timestamp)) chosen = index;
        });
        if (chosen === undefined) break;
        const record = heads[chosen]?.[cursors[chosen] ?? 0];
        if (record === undefined) break;
        records.push(record);
        cursors[chosen] = (cursors[chosen] ?? 0) + 1;
        next.set(record.partition, Number(record.offset) + 1);
      }
      return { records, next };
    });

    this.positionsTransaction = db.transaction((groupId: string, topics: readonly string[]): GroupPosition[] => {
      const positions: GroupPosition[] = [];
      for (const topic of [...new Set(topics)].sort()) {
        const partitions = this.statements.selectPartitions.get(topic)?.partitions ?? 0;
        for (let partition = 0; partition < partitions; partition += 1) {
          const committed = this.statements.selectPosition.get(groupId, topic, partition)?.nextOffset;
          const end = this.endOffset(topic, partition);
          const start = this.statements.selectStart.get(topic, partition)?.start ?? end;
          positions.push({
            topic,
            partition,
            start: String(start),
            end: String(end),
            committed: committed === undefined ? undefined : String(committed),
          });
        }
      }
      return positions;
    });
  }

  /**
   * Where a read of a topic starts in each of its partitions (none when the log does not have the topic): see
   * `TopicRead.from`. One snapshot of the file.
   */
  readStarts(topic: string, from: TopicRead['from']): Map<number, number> {
    return this.startsTransaction.deferred(topic, from);
  }

  /**
   * Up to `limit` records of a topic from the given starts (a partition not among them from its earliest record),
   * partitions merged by append time, and where each partition continues; one snapshot of the file.
   */
  readFrom(
    topic: string,
    starts: ReadonlyMap<number, number>,
    limit: number,
  ): { records: LogRecord[]; next: Map<number, number> } {
    return this.readTransaction.deferred(topic, starts, limit);
  }

  /**
   * A group's positions beside the ends of every partition of `topics` that exist, read in one transaction (one
   * snapshot of the file): a topic nobody published to or subscribed to yet is left out, and not created.
   */
  groupPositions(groupId: string, topics: readonly string[]): GroupPosition[] {
    return this.positionsTransaction.deferred(groupId, topics);
  }

  /** Appends records in one write transaction; returns the topics written. */
  append(records: readonly OutgoingRecord[], timestamp: number, defaultPartitions: number): Set<string> {
    return this.appendTransaction.immediate(records, timestamp, defaultPartitions);
  }

  /** Creates missing topics and missing group positions; returns the group's position in every partition. */
  resolvePositions(
    groupId: string,
    topics: readonly string[],
    fromBeginning: boolean,
    defaultPartitions: number,
    now: number,
  ): PartitionPosition[] {
    return this.resolveTransaction.immediate(groupId, topics, fromBeginning, defaultPartitions, now);
  }

  readBatch(topic: string, partition: number, fromOffset: number, limit: number): LogRecord[] {
    return this.statements.selectBatch.all(topic, partition, fromOffset, limit).map((row) => ({
      topic: row.topic,
      partition: row.partition,
      offset: String(row.offset),
      key: row.key,
      value: row.value,
      headers: JSON.parse(row.headers) as Record<string, string>,
      timestamp: row.timestamp,
    }));
  }

  readPosition(groupId: string, topic: string, partition: number): number {
    const row = this.statements.selectPosition.get(groupId, topic, partition);
    if (row === undefined) throw new Error(`No position of group ${groupId} in ${topic}/${partition}`);
    return row.nextOffset;
  }

  /**
   * Moves a group's position from `from` to `to`, only if it is still at `from` (compare-and-set, so that an
   * uncoordinated member in another process can never move it backwards). Returns whether it moved.
   */
  commitPosition(groupId: string, topic: string, partition: number, from: number, to: number): boolean {
    return this.statements.updatePosition.run(to, groupId, topic, partition, from).changes === 1;
  }

  close(): void {
    closeDatabase(this.db);
  }

  private ensureTopic(topic: string, defaultPartitions: number, now: number): number {
    const known = this.partitionCounts.get(topic);
    if (known !== undefined) return known;
    this.statements.insertTopic.run(topic, defaultPartitions, now);
    const row = this.statements.selectPartitions.get(topic);
    if (row === undefined) throw new Error(`Topic ${topic} could not be created`);
    this.partitionCounts.set(topic, row.partitions);
    return row.partitions;
  }

  private endOffset(topic: string, partition: number): number {
    return this.statements.selectEnd.get(topic, partition)?.end ?? 0;
  }
}

/**
 * Stable key → partition mapping (32-bit FNV-1a over the key's UTF-8 bytes). It must never change: records already
 * stored under one partition would lose their order relative to new ones.
 */
function partitionForKey(key: string, partitions: number): number {
  if (partitions === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash = Math.imul(hash ^ byte, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
