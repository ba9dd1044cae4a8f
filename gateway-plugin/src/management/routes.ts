/**
 * What the management API's endpoint groups (APIs, keys, policies, cache) add their routes to:
 * the routes and the request they are given, apart from the API that serves them.
 */
import type { Answer } from '@svc/engine';
import type { Router } from '@svc/engine/kit';

/** A management request, parsed: method, query, body on demand. */
export interface ManagementRequest {
  method: string;
  query: URLSearchParams;
  body(): Promise<Buffer>;
}

/** What a management route answers with; `params` are its path's `{name}` segments, decoded. */
export type Endpoint = (r: ManagementRequest, params: Readonly<Record<string, string>>) => Promise<Answer> | Answer;

/** The management API's routes under `/svc/` (the paths routed are decoded and without a trailing slash). */
export type ManagementRoutes = Router<Endpoint>;
