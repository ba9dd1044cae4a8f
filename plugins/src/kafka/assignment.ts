/**
 * Explicit partitions (`topics: [foo:0-3]`) through the group protocol: kafkajs has no manual
 * assign, so each member states the partitions it wants in its join metadata, and whichever
 * member leads the group hands every member exactly those. Offsets are then committed under
 * the group like any member's, and members asking for different partitions share one group.
 */
import type { Assigner, PartitionAssigner } from 'kafkajs';
import { kafkajs } from './kafkajs.js';

/** The protocol name every explicit-partition member of a group announces. */
export const EXPLICIT_ASSIGNER = 'SvcExplicitPartitions';
const VERSION = 0;

type Wanted = Record<string, number[]>;

function decodeWanted(userData: Buffer): Wanted {
  try {
    const v = JSON.parse(userData.toString('utf8')) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: Wanted = {};
    for (const [topic, parts] of Object.entries(v as Record<string, unknown>)) {
      if (Array.isArray(parts)) out[topic] = parts.filter((p): p is number => Number.isInteger(p));
    }
    return out;
  } catch {
    return {};
  }
}

/** An assigner giving each member the partitions it asked for (`wanted` is this member's). */
export function explicitAssigner(wanted: ReadonlyMap<string, readonly number[]>): PartitionAssigner {
  const userData = Buffer.from(JSON.stringify(Object.fromEntries(wanted)));
  return ({ cluster }): Assigner => ({
    name: EXPLICIT_ASSIGNER,
    version: VERSION,
    async assign({ members }) {
      return members.map(({ memberId, memberMetadata }) => {
        const asked = decodeWanted(kafkajs().AssignerProtocol.MemberMetadata.decode(memberMetadata)?.userData ?? Buffer.alloc(0));
        const assignment: Wanted = {};
        for (const [topic, parts] of Object.entries(asked)) {
          // Only partitions that exist: a member asking for more was told so when it connected.
          const known = new Set(cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId));
          const given = parts.filter((p) => known.has(p));
          if (given.length > 0) assignment[topic] = given;
        }
        return { memberId, memberAssignment: kafkajs().AssignerProtocol.MemberAssignment.encode({ version: VERSION, assignment, userData: Buffer.alloc(0) }) };
      });
    },
    protocol({ topics }) {
      return { name: EXPLICIT_ASSIGNER, metadata: kafkajs().AssignerProtocol.MemberMetadata.encode({ version: VERSION, topics, userData }) };
    },
  });
}
