import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { z } from 'zod';
import { defOf } from './zod-def';

/** Deepest element nesting accepted in a request body; real resources need under ten. */
export const MAX_XML_DEPTH = 32;

export class XmlInputError extends Error {}

/** An element given more than once where the resource holds one value (or one list wrapper). */
export class RepeatedXmlElement extends XmlInputError {
  constructor(
    /** Dotted from the root element down, as `offer.advertiser.name`. */
    readonly path: string,
    readonly count: number,
  ) {
    super(`element <${path.split('.').at(-1)}> appears ${count} times; it may appear once`);
  }
}

const IRREGULAR: Record<string, string> = {
  original_media: 'medium',
  media: 'medium',
  categories: 'category',
  addresses: 'address',
  statuses: 'status',
  items: 'item',
  matched: 'match',
};

/** The element name of one item in a list field: `headlines` → `headline`, `categories` → `category`. */
export function singular(listName: string): string {
  if (IRREGULAR[listName]) return IRREGULAR[listName];
  if (listName.endsWith('ies')) return `${listName.slice(0, -3)}y`;
  if (listName.endsWith('s')) return listName.slice(0, -1);
  return 'item';
}

/**
 * The XML form of a JSON value, field for field as JSON shows it: a field JSON leaves out
 * (undefined) has no element at all, so an absent `discount` or `items` is no element while an
 * empty list is an empty wrapper (`<items/>`); a field JSON shows as `null` is an empty element
 * (`<closed_at/>`), as the key is there in JSON.
 */
function toXmlTree(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return { [singular(key)]: value.map((v) => toXmlTree(v, singular(key))) };
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toXmlTree(v, k)]),
    );
  }
  return String(value);
}

const builder = new XMLBuilder({ format: false, suppressEmptyNode: true, processEntities: true });

/** Serializes an answer under the `<response>` root (or `root`); lists become a wrapper holding singular items. */
export function toXml(payload: unknown, root = 'response'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [root]: toXmlTree(payload, root) })}`;
}

function checkDepth(text: string): void {
  let depth = 0;
  const tag = /<(\/?)[A-Za-z_][^>]*?(\/?)>/g;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (m[1]) depth--;
    else if (!m[2]) depth++;
    if (depth > MAX_XML_DEPTH) throw new XmlInputError(`XML nested deeper than ${MAX_XML_DEPTH} elements`);
  }
}

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false, // the zod schema converts numbers and booleans, so XML and JSON bodies agree
  // Text must come out as sent: `&amp;` is `&`. Only the predefined entities and character
  // references (`&#38;`, and HTML names) are decoded; DOCTYPE and ENTITY declarations are refused
  // before parsing (parseXml), so there is no billion laughs and no external entity.
  processEntities: true,
  htmlEntities: true,
  trimValues: true,
});

const quoted = "'([^']*)'";
/**
 * The parser's well-formedness messages in plain words, with where: theirs show internals
 * (`Invalid '[    "offer",    "title"]' found`) and the words of their code. Anything not
 * recognised gives the line only, never the parser's own text.
 */
const XML_ERRORS: Array<[RegExp, (m: RegExpExecArray) => string, 'no line'?]> = [
  [new RegExp(`^Unclosed tag ${quoted}`), (m) => `element <${m[1]}> is never closed`],
  // Found at the end of the text, where the parser has no useful line to give.
  [/^Invalid '(\[.*\])' found/, (m) => `${closedNever(m[1])} never closed`, 'no line'],
  [
    new RegExp(`^Expected closing tag ${quoted} \\(opened in line (\\d+).*?\\) instead of closing tag ${quoted}`),
    (m) => `</${m[3]}> found where <${m[1]}> (opened on line ${m[2]}) should be closed`,
  ],
  [new RegExp(`^Closing tag ${quoted} has not been opened`), (m) => `</${m[1]}> closes an element that was never opened`],
  [new RegExp(`^Closing tag ${quoted} doesn't have proper closing`), (m) => `</${m[1]}> is missing its '>'`],
  [new RegExp(`^Closing tag ${quoted} can't have attributes`), (m) => `</${m[1]}> has something after its name`],
  [new RegExp(`^Tag ${quoted} is an invalid name`), (m) => `<${m[1]}> is not a valid element name`],
  [/^Invalid space after '<'/, () => `a space right after '<'`],
  [new RegExp(`^Attributes for ${quoted} have open quote`), (m) => `an attribute of <${m[1]}> has an unclosed quote`],
  [new RegExp(`^Attribute ${quoted} is repeated`), (m) => `attribute ${m[1]} appears twice`],
  [new RegExp(`^Attribute ${quoted}`), (m) => `attribute ${m[1]} is not written name="value"`],
  [new RegExp(`^boolean attribute ${quoted}`), (m) => `attribute ${m[1]} has no value`],
  [/^Multiple possible root nodes/, () => 'a second root element; the body must have exactly one'],
  [/^Extra text at the end/, () => 'text after the root element'],
  [/^char '&' is not expected/, () => "a bare '&' (write it as &amp;)"],
  [new RegExp(`^char ${quoted} is not expected`), (m) => `'${m[1]}' outside any element`],
  [/^Start tag expected/, () => 'no element found'],
  [/^XML declaration allowed only at the start/, () => '<?xml …?> is allowed only at the very start'],
];

/** `["offer","title"]` → `elements <offer> and <title> are`. */
function closedNever(list: string): string {
  let names: unknown;
  try {
    names = JSON.parse(list);
  } catch {
    return 'some elements are';
  }
  if (!Array.isArray(names)) return 'some elements are';
  const tags = names.map((n) => `<${String(n)}>`);
  return tags.length === 1 ? `element ${tags[0]} is` : `elements ${tags.slice(0, -1).join(', ')} and ${tags.at(-1)} are`;
}

function plainXmlError(msg: string, line: number): string {
  for (const [pattern, say, noLine] of XML_ERRORS) {
    const m = pattern.exec(msg);
    if (m) return noLine ? say(m) : `line ${line}: ${say(m)}`;
  }
  return `line ${line}: not well-formed`;
}

/**
 * Parses an XML request body into plain objects and strings, safely: no DOCTYPE or entity
 * declarations, a depth limit, and well-formedness checked before anything else.
 */
export function parseXml(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlInputError('DOCTYPE and ENTITY declarations are not allowed');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlInputError(`malformed XML: ${plainXmlError(valid.err.msg, valid.err.line)}`);
  checkDepth(text);
  const parsed = parser.parse(text) as Record<string, unknown>;
  // Two roots of one name (`<offer/><offer/>`) parse as one key holding a list: still two roots.
  if (!parsed || typeof parsed !== 'object' || Object.keys(parsed).length !== 1 || Array.isArray(Object.values(parsed)[0])) {
    throw new XmlInputError('an XML body must have exactly one root element, named after the resource');
  }
  return parsed;
}

/**
 * Shapes a parsed XML body the way its zod schema expects, so one schema validates XML and JSON:
 * a list wrapper's children become array items, and digits or true/false become numbers and booleans.
 * Anything that does not fit is left as it is, for the schema to report.
 */
export function coerceXmlToSchema(schema: z.ZodType, value: unknown, path = ''): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      if (value === '' && def.type === 'nullable' && defOf(def.innerType!).type !== 'string') return null;
      return coerceXmlToSchema(def.innerType!, value, path);
    case 'pipe':
      return coerceXmlToSchema(def.in!, value, path);
    case 'lazy':
      return coerceXmlToSchema(def.getter!(), value, path);
    case 'object': {
      if (value === '') return {};
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape!;
      const obj = value as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(obj).map(([k, v]) => {
          const at = path ? `${path}.${k}` : k;
          // The parser makes a list only of an element repeated: a list field is one wrapper
          // holding its items, so a repeated field is refused in words rather than as "an array".
          if (Array.isArray(v) && shape[k]) throw new RepeatedXmlElement(at, v.length);
          return [k, shape[k] ? coerceXmlToSchema(shape[k], v, at) : v];
        }),
      );
    }
    case 'array': {
      if (value === '') return [];
      const items = Array.isArray(value)
        ? value
        : value && typeof value === 'object'
          ? Object.values(value as Record<string, unknown>).flatMap((v) => (Array.isArray(v) ? v : [v]))
          : [value];
      return items.map((item, i) => coerceXmlToSchema(def.element!, item, `${path}.${i}`));
    }
    case 'number':
    case 'int':
      return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}
