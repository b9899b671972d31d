// Minimal types for the emulator packages that ship none.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 's3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: string[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    httpServer?: Server;
  }
}
