/**
 * Test helpers for the mongodb family (the `*.test.ts` files only): the FerretDB of
 * `scripts/services.sh up` through a driver client of the test's own, a database per test file
 * (dropped when the file ends), collection names no other test uses, components built from config.
 */
import { after } from 'node:test';
import { MongoClient, type Document } from 'mongodb';
import type { Cache, Input, Output, Processor } from '@svc/engine';
import { buildComponent, serviceAddress, testContext } from '@svc/engine/testing';
import './index.js';

export const MONGODB_URL = serviceAddress('SVC_MONGODB_URL') ?? 'mongodb://127.0.0.1:27117';

/** This file's database: its own, so parallel test files never share a collection. */
export const DATABASE = `svc_test_${process.pid}`;

let client: MongoClient | undefined;
let n = 0;

/** The test's own client (not the component's). */
export async function mongo(): Promise<MongoClient> {
  if (!client) {
    client = new MongoClient(MONGODB_URL, { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
  }
  return client;
}

after(async () => {
  if (!client) return;
  await client
    .db(DATABASE)
    .dropDatabase()
    .catch(() => undefined);
  await client.close();
});

/** A collection name no other test uses. */
export function tempCollection(what: string): string {
  return `${what}_${Date.now().toString(36)}_${n++}`;
}

/** The documents of a collection, sorted by `_id`, without promoting numbers (their BSON types are kept). */
export async function docsOf(collection: string, promoteValues = true): Promise<Document[]> {
  return (await mongo()).db(DATABASE).collection(collection).find({}, { promoteValues }).sort({ _id: 1 }).toArray();
}

/** The base of every component's config: the server and this file's database. */
export const base = { url: MONGODB_URL, database: DATABASE };

export function output(config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', 'mongodb', { ...base, ...config }, testContext({ type: 'mongodb', path: 'root.output' }));
}

export function input(config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', 'mongodb', { ...base, ...config }, testContext({ type: 'mongodb', path: 'root.input' }));
}

export function processor(config: Record<string, unknown>): Promise<Processor> {
  return buildComponent<Processor>('processor', 'mongodb', { ...base, ...config }, testContext({ type: 'mongodb', path: 'root.pipeline.processors.0' }));
}

export function cache(config: Record<string, unknown>): Promise<Cache> {
  return buildComponent<Cache>('cache', 'mongodb', { ...base, ...config }, testContext({ type: 'mongodb', path: 'root.cache_resources.0' }));
}
