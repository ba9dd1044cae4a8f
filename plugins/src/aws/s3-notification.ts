/**
 * The objects an S3 event notification names, found as Benthos finds them: `key_path` and
 * `bucket_path` are dot paths into the SQS message's JSON body (`*` takes every element of an
 * array), optionally inside a JSON string at `envelope_path` (an SNS envelope's `Message`). The
 * i-th bucket goes with the i-th key, else the input's `bucket`; keys arrive URL-encoded (S3
 * writes a space as `+`) and are decoded.
 */

export interface ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

export interface NotificationPaths {
  key_path: string;
  bucket_path: string;
  envelope_path: string;
}

/** The objects of one notification body; throws (a value with a reason) when it cannot be read. */
export function objectsOf(body: string, paths: NotificationPaths, defaultBucket: string): ObjectRef[] {
  let doc: unknown = parse(body, 'the SQS message is not JSON');
  if (paths.envelope_path !== '') {
    const inner = at(doc, paths.envelope_path);
    if (inner.length !== 1 || typeof inner[0] !== 'string') throw new Error(`expected a JSON string at envelope_path ${paths.envelope_path}`);
    doc = parse(inner[0], 'the enveloped message is not JSON');
  }
  const keys = strings(at(doc, paths.key_path));
  const buckets = paths.bucket_path === '' ? [] : strings(at(doc, paths.bucket_path));
  return keys.map((raw, i) => {
    const bucket = buckets[i] ?? defaultBucket;
    if (bucket === '') throw new Error('the SQS message names no bucket and the input has none');
    let key: string;
    try {
      key = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      throw new Error(`the key "${raw}" is not URL-encoded`);
    }
    return { bucket, key };
  });
}

/** True for the test event S3 sends when notifications are configured: it names no object, and nothing is owed on it. */
export function isTestEvent(body: string): boolean {
  try {
    const doc = JSON.parse(body) as { Event?: unknown };
    return doc !== null && typeof doc === 'object' && doc.Event === 's3:TestEvent';
  } catch {
    return false;
  }
}

function parse(text: string, why: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(why);
  }
}

/** The values at a dot path, `*` fanning out over an array's elements. Own properties only. */
function at(doc: unknown, path: string): unknown[] {
  let here: unknown[] = [doc];
  for (const seg of path.split('.')) {
    const next: unknown[] = [];
    for (const v of here) {
      if (seg === '*' && Array.isArray(v)) next.push(...(v as unknown[]));
      else if (Array.isArray(v) && /^\d+$/.test(seg)) {
        if (Number(seg) < v.length) next.push(v[Number(seg)]);
      } else if (v !== null && typeof v === 'object' && Object.hasOwn(v, seg)) next.push((v as Record<string, unknown>)[seg]);
    }
    here = next;
  }
  return here;
}

/** The strings among `values`, nested arrays flattened. */
function strings(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) out.push(...strings(v as unknown[]));
  }
  return out;
}
