/**
 * `/svc/policies` (Tyk's `polHandler`): list, get, and create/update/delete as files in
 * `policies.policy_path` (`<id>.json`, 2-space JSON, as Tyk writes them). Like Tyk's, a change
 * goes live with the next reload.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import { jsonAnswer } from '../kernel/answers.js';
import { policyProblem } from '../sessions/load-policies.js';
import type { Policy } from '../sessions/session.js';
import type { GatewayState } from '../kernel/state.js';
import type { ManagementRequest, ManagementRoutes } from './routes.js';
import { MALFORMED, deleteDefinition, modified, parseJson, statusMessage, validPathComponent } from './replies.js';

export class PolicyEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly log: Logger,
  ) {}

  private folder(): string {
    const c = this.state.config;
    return resolve(c.baseDir || '.', c.policies.policy_path || '.');
  }

  /** Tyk's routes: `/svc/policies[/{id}]` (no PUT or DELETE without an id). */
  route(routes: ManagementRoutes): void {
    routes
      .add('GET', '/svc/policies', () => jsonAnswer(200, this.state.allPolicies()))
      .add('POST', '/svc/policies', (r) => this.write(r, ''))
      .add('PUT', '/svc/policies', () => statusMessage(400, 'Must specify an apiID to update'))
      .add('DELETE', '/svc/policies', () => statusMessage(400, 'Must specify an apiID to delete'))
      .add('GET', '/svc/policies/{id}', (_r, p) => {
        const policy = this.state.policy(p['id']!);
        return policy ? jsonAnswer(200, policy) : statusMessage(404, 'Policy not found');
      })
      .add(['POST', 'PUT'], '/svc/policies/{id}', (r, p) => this.write(r, p['id']!))
      .add('DELETE', '/svc/policies/{id}', (_r, p) => this.remove(p['id']!));
  }

  private async write(r: ManagementRequest, id: string): Promise<Answer> {
    const pol = parseJson(await r.body()) as Policy | undefined;
    if (pol === null || typeof pol !== 'object' || Array.isArray(pol)) return MALFORMED;
    if (pol.id !== undefined && typeof pol.id !== 'string') return MALFORMED;
    // Tyk decodes the body into user.Policy: a field of the wrong type is "Request malformed".
    const wrong = policyProblem(pol);
    if (wrong !== undefined) {
      this.log.warn(`Couldn't decode policy: ${wrong}`);
      return MALFORMED;
    }
    if (id && pol.id !== id && r.method === 'PUT')
      return statusMessage(400, 'Request ID does not match that in policy! For Update operations these must match.');
    if (!pol.id) return statusMessage(400, 'Unable to create policy without id.');
    if (!validPathComponent(pol.id)) return statusMessage(400, 'invalid policy id');
    try {
      await mkdir(this.folder(), { recursive: true });
      await writeFile(join(this.folder(), `${pol.id}.json`), JSON.stringify(pol, null, 2));
    } catch (err) {
      this.log.error(`Failed to create file! - ${errorMessage(err)}`);
      return statusMessage(500, 'Failed to create file!');
    }
    return modified(pol.id, r.method === 'POST' ? 'added' : 'modified');
  }

  private async remove(id: string): Promise<Answer> {
    if (!validPathComponent(id)) return statusMessage(500, 'Delete failed');
    return deleteDefinition(join(this.folder(), `${id}.json`), id, this.log);
  }
}
