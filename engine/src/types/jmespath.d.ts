/** The part of jmespath 0.16 (the reference JavaScript JMESPath; it ships no types) the jmespath processor uses. */
declare module 'jmespath' {
  /** Parses an expression; throws a ParserError or LexerError for a bad one. */
  export function compile(expression: string): unknown;
  /** Evaluates an expression against a document. */
  export function search(data: unknown, expression: string): unknown;
}
