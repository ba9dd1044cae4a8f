/**
 * @svc/engine/testing: the kit for testing components and plugins, kept out of the plugin API.
 *
 *   import { buildComponent, testContext, RecordingLogger } from '@svc/engine/testing';
 */
export {
  RecordingLogger,
  testContext,
  withDefaults,
  lintValue,
  buildComponent,
  type LogLine,
  type TestContext,
  type TestContextOptions,
} from '../plugin/testing.js';
export { serviceAddress, waitFor } from './services.js';
export { freePort } from './free-port.js';
export { RedisServer } from './redis-server.js';
export { upstream, type Upstream } from './upstream.js';
export { EngineProcess } from './engine-process.js';
export { flakyUpstream, httpClientOutput, interruptAfterFirstRequest, reportedUndelivered, until, type FlakyUpstream } from './flaky-upstream.js';
export { TcpOutage } from './tcp-outage.js';
export { selfSignedCert } from './self-signed.js';
