// The node as GET /v1/nodes shows it: one TypeBox definition gives the response schema and the TS type.
import { Type, type Static } from '@sinclair/typebox';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const NodePrinterSchema = Type.Object({
  id: Type.String({ description: 'prt_...' }),
  name: Type.String(),
  status: Type.Union([Type.Literal('idle'), Type.Literal('printing'), Type.Literal('offline'), Type.Literal('paused'), Type.Literal('error')], {
    description:
      "The live status as GET /v1/printers shows it on any node: its own printers' from their sessions, another node's from the state that node publishes (offline once that node is lost or stopped).",
  }),
  job: Type.Union(
    [
      Type.Object({
        id: Type.Union([Type.String(), Type.Null()], { description: 'The job printing or paused on it; null for a print started on the printer itself.' }),
        name: Type.String({ description: "The job's name (the file name of a print started on the printer)." }),
        progress: Type.Union([Type.Number(), Type.Null()], { description: 'Percent 0..100, as the printer record shows it.' }),
      }),
      Type.Null(),
    ],
    { description: 'What it prints now; null when it prints nothing (or its node is lost or stopped).' },
  ),
});

export const NodeRecordSchema = Type.Object({
  id: Type.String({ description: 'nod_...' }),
  name: Type.String({ description: '--node-name (default: the host name).' }),
  address: nullable(Type.String({ description: 'The base URL other nodes forward printer actions to (--node-address).' })),
  version: Type.String({ description: 'The printfarm version the node runs.' }),
  started_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time', description: "The node's own clock at its last heartbeat." }),
  state: Type.Union([Type.Literal('online'), Type.Literal('lost'), Type.Literal('stopped')], {
    description: 'online; lost: no heartbeat for 30 s (its printing jobs failed with node_lost); stopped: shut down cleanly.',
  }),
  lost_since: nullable(
    Type.String({ format: 'date-time', description: 'When the other nodes marked it lost (state lost); null in any other state.' }),
  ),
  self: Type.Boolean({ description: 'true for the node answering this request.' }),
  printers: Type.Array(NodePrinterSchema, { description: 'The printers this node drives, oldest first.' }),
});
export type NodeRecord = Static<typeof NodeRecordSchema>;

export const NodeListSchema = Type.Object({ data: Type.Array(NodeRecordSchema) });
