/**
 * What every `aws_*` component shares: Benthos' session fields (`region`, `endpoint`,
 * `credentials`) and the AWS SDK v3 client options they make. Every request is bounded in time
 * (connect and response timeouts on the SDK's HTTP handler); the secret never appears in an error.
 *
 * Credentials, as Benthos takes them: `credentials.id` and `secret` (and `token` for short-term
 * credentials) are used as given; `profile` names a profile of the shared credentials file;
 * otherwise the SDK's default chain applies (environment, shared files, the EC2/ECS role, which
 * is what `from_ec2_role` asks for). With `role`, those credentials assume the role through STS
 * and the component signs with the role's temporary credentials (assume-role.ts).
 */
import { ErrorCode, NotConnectedError, SvcError, errorMessage, f, type Infer } from '@svc/engine';
import { assumeRoleProvider } from './assume-role.js';

export const sessionFields = {
  region: f.string().default('').advanced().describe('The AWS region to target; empty takes `AWS_REGION` from the environment, else `us-east-1`.'),
  endpoint: f
    .string()
    .default('')
    .advanced()
    .describe('A custom endpoint for the AWS API (e.g. `http://127.0.0.1:4566` for a local emulator); empty uses AWS.'),
  credentials: f
    .object({
      profile: f.string().default('').describe('A profile from `~/.aws/credentials` to use.'),
      id: f.string().default('').advanced().describe('The ID of credentials to use.'),
      secret: f.string().default('').secret().advanced().describe('The secret for the credentials being used.'),
      token: f.string().default('').secret().advanced().describe('The token for the credentials being used, required when using short term credentials.'),
      from_ec2_role: f
        .bool()
        .default(false)
        .describe("Use the credentials of the host's EC2 (or ECS) role; the SDK's default chain does this when no other credentials are set."),
      role: f
        .string()
        .default('')
        .advanced()
        .describe(
          'A role ARN to assume (STS AssumeRole) with the credentials above (or the default chain); the component then uses the temporary credentials of the role, renewed before they expire.',
        ),
      role_external_id: f.string().default('').advanced().describe('An external ID to provide when assuming a role.'),
    })
    .advanced()
    .describe('Optional manual configuration of AWS credentials to use.'),
};

export type SessionConfig = Infer<ReturnType<typeof f.object<typeof sessionFields>>>;

/** How long a connection may take to open, and a request to be answered, before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Credentials an SDK client signs with. */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** The options every SDK client of one component is built with. */
export interface ClientOptions {
  region: string;
  endpoint?: string;
  profile?: string;
  /** Static credentials, or (with `credentials.role`) a provider the SDK asks before each request. */
  credentials?: Credentials | (() => Promise<Credentials>);
  maxAttempts: number;
  requestHandler: { connectionTimeout: number; requestTimeout: number };
}

/** The SDK client options for `conf`; throws (at load) for what is not implemented. */
export function clientOptions(conf: SessionConfig, component: string, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): ClientOptions {
  const c = conf.credentials;
  if ((c.id === '') !== (c.secret === '')) {
    throw new SvcError(ErrorCode.ConfigLint, `${component}: credentials.id and credentials.secret go together: set both, or neither to use the default chain`);
  }
  const opts: ClientOptions = {
    region: conf.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
    // Retries of throttled or failed requests stay with the SDK (3 attempts, its own back-off).
    maxAttempts: 3,
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: requestTimeoutMs },
  };
  if (conf.endpoint !== '') opts.endpoint = conf.endpoint;
  const base = c.id !== '' ? { accessKeyId: c.id, secretAccessKey: c.secret, ...(c.token !== '' ? { sessionToken: c.token } : {}) } : undefined;
  const profile = base === undefined && c.profile !== '' ? c.profile : undefined;
  if (c.role !== '') {
    opts.credentials = assumeRoleProvider({
      role: c.role,
      externalId: c.role_external_id,
      region: opts.region,
      endpoint: opts.endpoint,
      profile,
      credentials: base,
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: DEFAULT_REQUEST_TIMEOUT_MS },
      component,
    });
  } else if (base !== undefined) opts.credentials = base;
  else if (profile !== undefined) opts.profile = profile;
  return opts;
}

/** An SDK error as one line: its name (the AWS error code) and message, never the request's credentials. */
export function awsError(err: unknown): string {
  if (err instanceof Error) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const name = err.name && err.name !== 'Error' ? `${err.name}: ` : '';
    return `${name}${err.message}${status ? ` (HTTP ${status})` : ''}`;
  }
  return errorMessage(err);
}

/** True when the error means the service could not be reached (retry after reconnecting), not that it refused. */
export function isConnectionError(err: unknown): boolean {
  const text = err instanceof Error ? `${err.name} ${err.message} ${(err as { code?: string }).code ?? ''}` : String(err);
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|socket hang up|TimeoutError|RequestTimeout|NetworkingError/i.test(text);
}

/**
 * A failed request as the error a component raises, `why` (what failed) followed by the SDK's
 * error: a NotConnectedError when the service could not be reached (the runtime reconnects and
 * tries again), else an Error.
 */
export function requestError(why: string, err: unknown): Error {
  const text = `${why}: ${awsError(err)}`;
  return isConnectionError(err) ? new NotConnectedError(text) : new Error(text);
}
