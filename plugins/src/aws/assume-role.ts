/**
 * `credentials.role`: the credentials of a role assumed through STS (AssumeRole), as Benthos
 * takes them: the base credentials (id and secret, a profile, or the SDK's default chain) ask STS
 * for the role, with `role_external_id` when set, and the component signs with the temporary
 * credentials STS answers. They are kept until five minutes before they expire, then asked for
 * again; concurrent requests share one AssumeRole call. STS is asked at `endpoint` when one is
 * set (an emulator such as moto or LocalStack answers every service at one address).
 */
import { awsError, type Credentials } from './session.js';

/** How long before their expiry assumed credentials are renewed. */
const RENEW_BEFORE_MS = 5 * 60_000;

export interface AssumeRoleOptions {
  role: string;
  externalId: string;
  region: string;
  endpoint?: string;
  profile?: string;
  credentials?: Credentials;
  requestHandler: { connectionTimeout: number; requestTimeout: number };
  component: string;
}

/** An SDK credentials provider that assumes `opts.role`; its errors name the role, never a secret. */
export function assumeRoleProvider(opts: AssumeRoleOptions): () => Promise<Credentials> {
  let current: Credentials | undefined;
  let pending: Promise<Credentials> | undefined;
  // One session name per component instance, as the AWS SDKs make it: it shows in CloudTrail.
  const sessionName = `svc-${Date.now()}`;
  const assume = async (): Promise<Credentials> => {
    const sdk = await import('@aws-sdk/client-sts');
    const sts = new sdk.STSClient({
      region: opts.region,
      maxAttempts: 3,
      requestHandler: opts.requestHandler,
      ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
      ...(opts.profile !== undefined ? { profile: opts.profile } : {}),
      ...(opts.credentials !== undefined ? { credentials: opts.credentials } : {}),
    });
    try {
      const res = await sts.send(
        new sdk.AssumeRoleCommand({
          RoleArn: opts.role,
          RoleSessionName: sessionName,
          ...(opts.externalId !== '' ? { ExternalId: opts.externalId } : {}),
        }),
      );
      const c = res.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('STS answered no credentials');
      return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: c.Expiration };
    } catch (err) {
      // The SDK's error text stays in the message, so a connection error still makes the component reconnect.
      throw new Error(`${opts.component}: cannot assume role ${opts.role}: ${awsError(err)}`);
    } finally {
      sts.destroy();
    }
  };
  return async () => {
    if (current && (!current.expiration || current.expiration.getTime() - Date.now() > RENEW_BEFORE_MS)) return current;
    pending ??= assume().then(
      (c) => {
        current = c;
        pending = undefined;
        return c;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}
