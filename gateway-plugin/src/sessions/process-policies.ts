/**
 * The gateway's policies when it runs as several processes (`processes`): one set for every
 * process, kept by the primary. The first process to load publishes what it read; a process that
 * starts later (a child replacing a crashed one, or one slower to start) serves that set rather
 * than what the files hold by then; a reload reads the files once, in the process that took it,
 * and publishes its set to every process. So every process serves the same policies, and a
 * policy file broken on disk costs none of them the last good set.
 */
import { type ProcessLink, ReplicatedMap } from '@svc/engine/kit';
import { fromRecords, policyRecords, type PolicyRecord } from './load-policies.js';
import type { Policy } from './session.js';

const SET = 'set';

export class ProcessPolicies {
  private readonly map: ReplicatedMap<PolicyRecord[]>;

  private constructor(link: ProcessLink, gateway: string) {
    this.map = new ReplicatedMap<PolicyRecord[]>(link, `svc.gateway.policies:${gateway}`);
  }

  /** The policies of gateway `gateway`, with what the other processes published already. */
  static async open(link: ProcessLink, gateway: string): Promise<ProcessPolicies> {
    const shared = new ProcessPolicies(link, gateway);
    await shared.map.load();
    return shared;
  }

  /** The set every process serves; undefined until a process loaded one. */
  current(): Policy[] | undefined {
    const records = this.map.get(SET);
    return records === undefined ? undefined : fromRecords(records);
  }

  /** Publishes `policies` unless another process published first; resolves with the set every process serves. */
  async first(policies: Policy[]): Promise<Policy[]> {
    return fromRecords(await this.map.setIfAbsent(SET, policyRecords(policies)));
  }

  /** Publishes `policies` to every process; resolves once each has them. */
  publish(policies: Policy[]): Promise<void> {
    return this.map.set(SET, policyRecords(policies));
  }

  close(): void {
    this.map.close();
  }
}
