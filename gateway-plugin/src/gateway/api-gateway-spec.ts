/** The `api_gateway` input's config fields (the gateway's own settings are in svc.conf). */
import { f, type Infer } from '@svc/engine';

export const apiGatewaySpec = f.object({
  conf: f.string().describe("The gateway config file (svc.conf: JSON with Tyk's field names); relative paths in it resolve against its folder."),
  processes: f
    .int()
    .default(0)
    .validate((n) => (n >= 0 ? undefined : 'processes must be 0 (one per core) or more'))
    .describe(
      'How many gateway processes serve under `engine -c`, sharing the listening socket; 0 (the default): one per core, as Tyk uses every core. Management API writes and reloads reach every process before the call answers; sessions kept in memory are one set for all; in-memory rate limits and quotas are one counter for all, and the circuit breakers, load-balancing turns and memory response cache one state for all (kept by the primary process).',
    ),
  max_body_size: f
    .int()
    .default(16 * 1024 * 1024)
    .validate((n) => (n > 0 ? undefined : 'max_body_size must be positive'))
    .advanced()
    .describe('The largest request body read into a message (only when a rule reads the body, as split token does), in bytes; larger get 413.'),
  body_timeout: f.duration().default('30s').advanced().describe('How long such a body may take to arrive; then 408.'),
  headers_timeout: f.duration().default('10s').advanced().describe('Request headers must arrive within this (slowloris clients are cut).'),
  request_timeout: f
    .duration()
    .default('120s')
    .advanced()
    .describe("A whole request, body included, must arrive within this (Tyk's `http_server_options.read_timeout`, 120 s); 0: no limit."),
  write_timeout: f
    .duration()
    .default('120s')
    .advanced()
    .describe(
      "A whole exchange, from the request's arrival to the end of its answer, must end within this (Tyk's `http_server_options.write_timeout`, 120 s): past it the connection is cut, so an upstream that stalls mid-answer cannot hold a client forever. 0: no limit.",
    ),
  max_header_size: f
    .int()
    .default(16 * 1024)
    .advanced()
    .describe('The largest request head (request line and headers), in bytes; larger get 431.'),
  close_grace: f.duration().default('5s').advanced().describe('On shutdown, how long requests in flight may take to finish before their connections are cut.'),
});

export type ApiGatewayConfig = Infer<typeof apiGatewaySpec>;
