import type { z } from 'zod';

// Both HTTP APIs (the socket's /v1 and the web UI's /api) declare an operation as a table entry
// with optional zod schemas; these read the types of its body and answer from the entry, so
// neither API writes them twice.

type SchemaOf<Operation, Kind extends 'request' | 'response'> = Operation extends {
  readonly [K in Kind]: infer Schema extends z.ZodType;
}
  ? Schema
  : never;

/** The body as the server hands it on (after its schema); undefined where the operation takes none. */
export type RequestOf<Operation> = [SchemaOf<Operation, 'request'>] extends [never]
  ? undefined
  : z.output<SchemaOf<Operation, 'request'>>;

/** The body as a client sends it (before the schema's defaults); undefined where the operation takes none. */
export type BodyOf<Operation> = [SchemaOf<Operation, 'request'>] extends [never]
  ? undefined
  : z.input<SchemaOf<Operation, 'request'>>;

/** What a successful answer carries; never where the operation declares no answer. */
export type ResponseOf<Operation> = [SchemaOf<Operation, 'response'>] extends [never]
  ? never
  : z.output<SchemaOf<Operation, 'response'>>;
