/**
 * `/svc/policies` (Tyk's `polHandler`): list, get, and create/update/delete as files in
 * `policies.policy_path` (`<id>.json`, 2-space JSON, as Tyk writes them). Like Tyk's, a change
 * goes live with the next reload.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import { jsonAnswer } from '../answers.js';
import { policyProblem } from '../../sessions/load-policies.js';
import type { Policy } from '../../sessions/session.js';
import type { GatewayState } from '../state.js';
import type { ManagementRequest } from './management-api.js';
import { MALFORMED, METHOD_NOT_SUPPORTED, NO_ROUTE, deleteDefinition, modified, parseJson, statusMessage, validPathComponent } from './replies.js';

export class PolicyEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly log: Logger,
  ) {}

  private folder(): string {
    const c = this.state.config;
    return resolve(c.baseDir || '.', c.policies.policy_path || '.');
  }

  async handle(r: ManagementRequest, rest: string[]): Promise<Answer> {
    if (rest.length > 1) return NO_ROUTE;
    const id = rest[0] ?? '';
    switch (r.method) {
      case 'GET':
        if (!id) return jsonAnswer(200, this.state.allPolicies());
        return this.state.policy(id) ? jsonAnswer(200, this.state.policy(id)) : statusMessage(404, 'Policy not found');
      case 'POST':
      case 'PUT':
        if (r.method === 'PUT' && !id) return statusMessage(400, 'Must specify an apiID to update');
        return this.write(r, id);
      case 'DELETE':
        if (!id) return statusMessage(400, 'Must specify an apiID to delete');
        return this.remove(id);
      default:
        return METHOD_NOT_SUPPORTED;
    }
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
