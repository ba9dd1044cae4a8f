/**
 * @svc/engine/kit: what a plugin that serves or is pushed to builds on, so that no plugin keeps
 * its own copy. Kept out of the main door (`@svc/engine`), which stays the component API that
 * every plugin reads; a plugin with a server of its own imports these too.
 *
 *   import { PushInput, readBody, BodyError, Router } from '@svc/engine/kit';
 */
export { PushInput, type Pushed } from '../runtime/push-input.js';
export { readBody, BodyError, type BodyStatus, type BodyStream } from '../http/request-body.js';
export { Deadline } from '../http/deadline.js';
export { Router, ANY_METHOD, type RouterOptions, type TrailingSlash, type RouteMatch, type MethodNotAllowed } from '../http/router.js';
export { RoutePattern, safeDecode } from '../http/route-pattern.js';
