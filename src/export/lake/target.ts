/**
 * Where a lake export writes: a folder or an S3 prefix, behind the few operations the export
 * needs. Keys are relative to the lake's root and use `/`. A `put` is whole or absent to a
 * reader (an S3 PUT; a rename in a folder), which is what makes replacing a manifest atomic.
 */
export interface LakeObject {
  readonly key: string;
  /** When the object was last written (S3 LastModified; a file's mtime). */
  readonly modifiedMs: number;
}

export interface LakeTarget {
  /** `s3://bucket/prefix/` or the folder, for messages. */
  readonly where: string;
  /** Every object under the lake's root. */
  list(): Promise<LakeObject[]>;
  /** The object's text, undefined when it does not exist. */
  getText(key: string): Promise<string | undefined>;
  putText(key: string, text: string): Promise<void>;
  /** Uploads a local file as the object `key`. */
  putFile(key: string, file: string): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
  close(): void;
}

/** Counts of what an export did to the target (the summary, and the tests' figures). */
export interface LakeWrites {
  objectsPut: number;
  bytesPut: number;
  objectsDeleted: number;
}
