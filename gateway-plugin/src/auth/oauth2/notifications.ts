/**
 * Tyk's OAuth key change notifications (apidef/notifications.go `SendRequest`): after each token
 * issued, `notifications.oauth_on_keychange_url` gets a POST of `{auth_code, new_oauth_token,
 * refresh_token, old_refresh_token, notification_type}` (`new`, or `refresh` when a refresh token
 * was traded) with `X-Tyk-Shared-Secret`, in the background; a failed send is tried again 10 s
 * later, three tries in all. The body holds tokens: nothing of it is logged.
 */
import type { OAuth2Settings } from '../../apis/api-spec.js';

export interface KeyChange {
  auth_code: string;
  new_oauth_token: string;
  refresh_token: string;
  old_refresh_token: string;
  notification_type: 'new' | 'refresh';
}

const RETRY_MS = 10_000;
const TRIES = 3;
/** A notification that has not answered in this long counts as failed (Go's default client has no deadline; ours does). */
const SEND_TIMEOUT_MS = 10_000;

async function send(url: string, secret: string, body: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'user-agent': 'Tyk-Gatewy-Notifications', 'content-type': 'application/json', 'x-tyk-shared-secret': secret },
      body,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** Sends `change` to the API's key change URL, if it has one, without waiting. */
export function notifyKeyChange(settings: OAuth2Settings, change: KeyChange): void {
  if (settings.keyChangeUrl === '') return;
  const body = JSON.stringify(change);
  const attempt = (n: number): void => {
    void send(settings.keyChangeUrl, settings.sharedSecret, body).then((ok) => {
      if (!ok && n + 1 < TRIES) setTimeout(() => attempt(n + 1), RETRY_MS).unref();
    });
  };
  attempt(0);
}
