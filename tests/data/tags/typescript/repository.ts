import type { Request, Response } from 'express';
import Database, { Pool as ConnectionPool } from './db';
import * as log from './log';
import fs = require('fs');
export { Entity, toRow as serialize } from './entity';
export * from './errors';
export * as schema from './schema';

/** Anything with a primary key. */
export interface Identified {
  id: number;
  describe(): string;
}

export interface Repository<T extends Identified> extends Reader<T>, storage.Writer<T> {
  find(id: number): Promise<T | undefined>;
  save(item: T): Promise<void>;
}

export type Row = Record<string, unknown>;

export enum Status {
  Active = 'active',
  Archived = 'archived',
}

// Shared plumbing for SQL-backed repositories.
export abstract class BaseRepository<T extends Identified> implements Repository<T> {
  protected constructor(protected readonly pool: ConnectionPool) {}

  abstract table(): string;

  async find(id: number): Promise<T | undefined> {
    const rows = await this.pool.query(`select * from ${this.table()} where id = $1`, [id]);
    return rows.map((row: Row) => this.hydrate(row))[0];
  }

  async save(item: T): Promise<void> {
    log.info('saving', item.describe());
    await this.pool.query(this.insertSql(), serialize(item));
  }

  private insertSql(): string {
    return `insert into ${this.table()}`;
  }

  protected abstract hydrate(row: Row): T;

  format(item: T): string;
  format(item: T, verbose: boolean): string;
  format(item: T, verbose = false): string {
    return verbose ? JSON.stringify(item) : String(item.id);
  }
}

export class UserRepository extends BaseRepository<User> {
  table() {
    return 'users';
  }

  protected hydrate(row: Row): User {
    return new User(row.id as number, String(row.name));
  }

  handler = async (req: Request, res: Response): Promise<void> => {
    res.json(await this.find(Number(req.params.id)));
  };
}

export namespace Migrations {
  export function up(db: Database): void {
    db.exec(fs.readFileSync('up.sql', 'utf8'));
  }
}

export const createRepository = <T extends Identified>(pool: ConnectionPool): UserRepository =>
  new UserRepository(pool);

export default function connect(url: string): Database {
  return Database.open(url);
}

declare global {
  function gc(): void;
}
