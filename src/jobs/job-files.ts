// What the jobs feature needs from the files feature: a stored, validated file from a URL or a multipart upload.
import type { IncomingMessage } from 'node:http';
import type { FormFields } from './job-form.js';
import type { JobFileInfo } from './jobs.service.js';

export interface JobFiles {
  /** Downloads, validates and stores the file at `url` (http/https) before the job is created. */
  fromUrl(url: string): Promise<JobFileInfo>;
  /** Streams a multipart job create: the `file` part to the store, the other parts as text fields. */
  fromMultipart(req: IncomingMessage): Promise<{ fields: FormFields; file: JobFileInfo | null }>;
  /** Where a stored file lives on disk (the printer session streams it from there). */
  pathOf(fileId: string): string;
}
