/**
 * Field specs: each component declares its config once, and from that one declaration come
 * its TypeScript type (`Infer`), its defaults, lint, its JSON Schema and its documentation.
 *
 *   const spec = f.object({
 *     count: f.int().default(0).describe('flush at this many messages; 0 disables'),
 *     period: f.duration().default('').describe('flush an incomplete batch after this period'),
 *   });
 *   type Conf = Infer<typeof spec>;   // { count: number; period: string }
 */
import type { ComponentConfig, ComponentKind } from './component-config.js';
import { urlFieldProblem, type UrlAlternative } from './url-field.js';

export type FieldKind = 'string' | 'int' | 'float' | 'bool' | 'array' | 'object' | 'map' | 'any' | 'component';

interface FieldProps {
  kind: FieldKind;
  description: string;
  hasDefault: boolean;
  defaultValue: unknown;
  isOptional: boolean;
  options?: readonly string[];
  item?: Field<unknown>;
  fields?: Record<string, Field<unknown>>;
  componentKind?: ComponentKind;
  isInterpolated: boolean;
  isAdvanced: boolean;
  isSvcOnly: boolean;
  isSecret: boolean;
  isUrl: boolean;
  duration: boolean;
  /** A string in the expression language: a whole mapping, or one query expression. */
  lang?: 'mapping' | 'query';
  /** Extra check run on the value; returns an error message or undefined. */
  check?: (value: unknown) => string | undefined;
}

/** One field of a config spec. Immutable: every modifier returns a new field. */
export class Field<T> {
  declare readonly __type: T;
  readonly kind: FieldKind;
  readonly description: string;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  readonly isOptional: boolean;
  readonly options?: readonly string[];
  readonly item?: Field<unknown>;
  readonly fields?: Record<string, Field<unknown>>;
  readonly componentKind?: ComponentKind;
  readonly isInterpolated: boolean;
  readonly isAdvanced: boolean;
  readonly isSvcOnly: boolean;
  readonly isSecret: boolean;
  readonly isUrl: boolean;
  readonly duration: boolean;
  readonly lang?: 'mapping' | 'query';
  readonly check?: (value: unknown) => string | undefined;

  constructor(props: FieldProps) {
    this.kind = props.kind;
    this.description = props.description;
    this.hasDefault = props.hasDefault;
    this.defaultValue = props.defaultValue;
    this.isOptional = props.isOptional;
    this.options = props.options;
    this.item = props.item;
    this.fields = props.fields;
    this.componentKind = props.componentKind;
    this.isInterpolated = props.isInterpolated;
    this.isAdvanced = props.isAdvanced;
    this.isSvcOnly = props.isSvcOnly;
    this.isSecret = props.isSecret;
    this.isUrl = props.isUrl;
    this.duration = props.duration;
    this.lang = props.lang;
    this.check = props.check;
  }

  private with<U = T>(changes: Partial<FieldProps>): Field<U> {
    return new Field<U>({ ...(this as unknown as FieldProps), ...changes });
  }

  /** The value used when the field is absent. */
  default(value: T): Field<T> {
    return this.with({ hasDefault: true, defaultValue: value });
  }

  /** Absent means `undefined` (no default, not required). */
  optional(): Field<T | undefined> {
    return this.with<T | undefined>({ isOptional: true });
  }

  /** For a component field: the component used when absent, as written in YAML (`{ stdout: {} }`). */
  defaultComponent(raw: Record<string, unknown>): Field<T> {
    return this.with({ hasDefault: true, defaultValue: raw });
  }

  describe(description: string): Field<T> {
    return this.with({ description });
  }

  /** The field accepts `${! ... }` interpolations, evaluated per message. */
  interpolated(): Field<T> {
    return this.with({ isInterpolated: true });
  }

  /** Hidden from the short documentation; for tuning. */
  advanced(): Field<T> {
    return this.with({ isAdvanced: true });
  }

  /**
   * A field of svc's that Benthos does not have: `engine create` leaves it out (its default
   * applies), so what it prints lints on Benthos too.
   */
  svcOnly(): Field<T> {
    return this.with({ isSvcOnly: true });
  }

  /** Never printed in logs, errors or `engine echo`. */
  secret(): Field<T> {
    return this.with({ isSecret: true });
  }

  /**
   * A URL (or, in an array, a list of them) that may carry a password (`amqp://user:pass@host/`):
   * `engine echo` shows it with the password as `xxxxx`; components print it through
   * `redactUrl` and scrub client errors with `scrubSecrets`. Lint refuses a value that is not a
   * URL (`urlProblem`); `also` names what the field takes besides one (`host:port`, a file path).
   */
  url(also?: UrlAlternative): Field<T> {
    return this.with<T>({ isUrl: true }).validate((v) => urlFieldProblem(v, also));
  }

  /** An extra validation; return an error message, or undefined when the value is fine. */
  validate(check: (value: T) => string | undefined): Field<T> {
    const prev = this.check;
    return this.with({
      check: (v: unknown) => prev?.(v) ?? check(v as T),
    });
  }

  get required(): boolean {
    return !this.hasDefault && !this.isOptional;
  }
}

export type Infer<F> = F extends Field<infer T> ? T : never;
type InferFields<F extends Record<string, Field<unknown>>> = { [K in keyof F]: Infer<F[K]> };

function base(kind: FieldKind, extra: Partial<FieldProps> = {}): FieldProps {
  return {
    kind,
    description: '',
    hasDefault: false,
    defaultValue: undefined,
    isOptional: false,
    isInterpolated: false,
    isAdvanced: false,
    isSvcOnly: false,
    isSecret: false,
    isUrl: false,
    duration: false,
    ...extra,
  };
}

const DURATION_RE = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;

/** The field builders. */
export const f = {
  string: (): Field<string> => new Field(base('string')),
  int: (): Field<number> => new Field(base('int')),
  float: (): Field<number> => new Field(base('float')),
  bool: (): Field<boolean> => new Field(base('bool')),
  any: (): Field<unknown> => new Field(base('any')),
  /** A string that must be one of `options`. */
  enum: <const O extends readonly string[]>(options: O): Field<O[number]> => new Field(base('string', { options })),
  /** A Go-style duration string (`500ms`, `1m30s`); empty and `0` are allowed. */
  duration: (): Field<string> =>
    new Field<string>(
      base('string', {
        duration: true,
        check: (v) =>
          v === '' || v === '0' || DURATION_RE.test(String(v)) ? undefined : `invalid duration "${String(v)}": use a number with a unit, e.g. 500ms, 5s, 1m30s`,
      }),
    ),
  /** A mapping in the expression language (Bloblang), checked at lint time. */
  mapping: (): Field<string> => new Field<string>(base('string', { lang: 'mapping' })),
  /** One expression of the expression language (a `check`), checked at lint time. */
  query: (): Field<string> => new Field<string>(base('string', { lang: 'query' })),
  array: <U>(item: Field<U>): Field<U[]> => new Field(base('array', { item: item as Field<unknown> })),
  map: <U>(item: Field<U>): Field<Record<string, U>> => new Field(base('map', { item: item as Field<unknown> })),
  object: <F extends Record<string, Field<unknown>>>(fields: F): Field<InferFields<F>> => new Field(base('object', { fields })),
  /** A nested component of a kind (an input in a broker, a processor in a list). */
  component: (kind: ComponentKind): Field<ComponentConfig> => new Field(base('component', { componentKind: kind })),
};
