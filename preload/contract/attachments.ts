/** D2 contract, X3: attachments (images and text files) and `@`-mentions of workspace paths. */

/** A stored attachment as a message names it (`id` is the sha256 of its bytes in the data folder). */
export interface AttachmentDto {
  id: string;
  type: 'image' | 'file';
  name: string;
  mimeType: string;
  bytes: number;
  width?: number;
  height?: number;
  /** An `@`-mention: a workspace file, or a folder's listing. */
  mention?: 'file' | 'folder';
}

/** What `agent` takes: attachments by id, with the name to show. */
export interface AttachmentRef {
  id: string;
  name?: string;
  mention?: 'file' | 'folder';
}

/** One completion of an `@` path in the composer (workspace-relative, "/" separated; folders end with "/"). */
export interface PathCompletion {
  path: string;
  kind: 'file' | 'dir';
}
