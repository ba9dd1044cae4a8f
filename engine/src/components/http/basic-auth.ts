/** `basic_auth`: an `Authorization: Basic` header on every request. */
import { f, type Infer } from '@svc/engine';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';

export const basicAuthSpec = f
  .object({
    enabled: f.bool().default(false).describe('Whether to use basic authentication.'),
    username: f.string().default('').describe('The username.'),
    password: f.string().default('').secret().describe('The password.'),
  })
  .describe('HTTP basic authentication.');

export type BasicAuthConfig = Infer<typeof basicAuthSpec>;

export class BasicAuth implements RequestAuth {
  private readonly header: string;
  constructor(conf: BasicAuthConfig) {
    this.header = 'Basic ' + Buffer.from(`${conf.username}:${conf.password}`).toString('base64');
  }
  apply(req: OutgoingRequest): void {
    req.headers['authorization'] = this.header;
  }
}
