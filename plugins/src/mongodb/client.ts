/**
 * What every mongodb component shares: Redpanda Connect's connection fields (`url`, `database`,
 * `username`, `password`, `app_name`), the driver loaded when a component connects (not when the
 * plugin package is imported: it is ~200 modules), and errors that never carry the password or
 * the URL's userinfo.
 */
import type * as Mongo from 'mongodb';
import { NotConnectedError, errorMessage, f, scrubSecrets } from '@svc/engine';

export type MongoModule = typeof Mongo;

let mod: MongoModule | undefined;

/** The driver, imported once. */
export async function loadMongodb(): Promise<MongoModule> {
  return (mod ??= await import('mongodb'));
}

export const clientFields = {
  // A replica set's URL lists its hosts with commas (`hosts`); `engine echo` hides its password.
  url: f.string().url('hosts').describe('The URL of the target MongoDB server.'),
  database: f.string().describe('The name of the target MongoDB database.'),
  username: f.string().default('').describe('The username to connect to the database.'),
  password: f.string().default('').secret().describe('The password to connect to the database.'),
  app_name: f.string().default('benthos').advanced().describe('The client application name.'),
};

/** The connection fields as a component's config holds them. */
export interface ClientConfig {
  url: string;
  database: string;
  username: string;
  password: string;
  app_name: string;
}

/** A connected client and its database. */
export interface MongoConnection {
  mongo: MongoModule;
  client: Mongo.MongoClient;
  db: Mongo.Db;
}

/** `err`'s message without the password or the URL's credentials. */
export function scrubbed(conf: ClientConfig, err: unknown): string {
  return scrubSecrets(errorMessage(err), conf.password === '' ? [] : [conf.password], [conf.url]);
}

/**
 * Connects and pings the database (as Benthos does before it calls a component connected). The
 * bounds are Benthos': 10 s to open a connection, 30 s to find a server, unless the URL sets them
 * (Benthos applies the URL after its defaults). Throws a NotConnectedError naming `what`, scrubbed.
 */
export async function connectMongo(conf: ClientConfig, what: string): Promise<MongoConnection> {
  const mongo = await loadMongodb();
  let client: Mongo.MongoClient | undefined;
  try {
    const query = conf.url.includes('?') ? conf.url.slice(conf.url.indexOf('?')).toLowerCase() : '';
    client = new mongo.MongoClient(conf.url, {
      appName: conf.app_name,
      ...(query.includes('connecttimeoutms=') ? {} : { connectTimeoutMS: 10_000 }),
      ...(query.includes('serverselectiontimeoutms=') ? {} : { serverSelectionTimeoutMS: 30_000 }),
      ...(conf.username !== '' && conf.password !== '' ? { auth: { username: conf.username, password: conf.password } } : {}),
    });
    await client.connect();
    const db = client.db(conf.database);
    await db.command({ ping: 1 });
    return { mongo, client, db };
  } catch (err) {
    await client?.close().catch(() => undefined);
    throw new NotConnectedError(`${what}: cannot connect to MongoDB: ${scrubbed(conf, err)}`);
  }
}
