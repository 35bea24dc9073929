import { z } from 'zod';
import { coerceXmlToSchema, parseXml, RepeatedXmlElement, singular, toXml } from '../../schemas/xml';

describe('XML', () => {
  it('names list items in the singular', () => {
    expect(singular('custom_attributes')).toBe('custom_attribute');
    expect(singular('headlines')).toBe('headline');
    expect(singular('categories')).toBe('category');
    expect(singular('redemption_locations')).toBe('redemption_location');
    expect(singular('items')).toBe('item');
    expect(singular('original_media')).toBe('medium');
  });

  it('serializes lists as a wrapper of singular elements under <response>', () => {
    const xml = toXml({
      status: 'OK',
      offer: { headlines: ['a', 'b'], original_media: [{ id: 'x' }], price: { amount: 100 }, closed_at: null },
    });
    expect(xml).toContain('<response><status>OK</status><offer><headlines><headline>a</headline><headline>b</headline></headlines>');
    expect(xml).toContain('<original_media><medium><id>x</id></medium></original_media>');
    expect(xml).toContain('<amount>100</amount>');
    expect(xml).toContain('<closed_at/>');
  });

  it('writes a field as JSON shows it: absent is no element, null an empty element, an empty list an empty wrapper', () => {
    const offer = {
      title: 'T',
      discount: undefined,
      items: [],
      restrictions: undefined,
      closed_at: null,
      price: { amount: 1, note: undefined },
    };
    expect(JSON.parse(JSON.stringify(offer))).toEqual({ title: 'T', items: [], closed_at: null, price: { amount: 1 } });
    expect(toXml({ offer })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><offer><title>T</title><items/><closed_at/><price><amount>1</amount></price></offer></response>',
    );
  });

  it('escapes text so markup in values cannot inject elements', () => {
    expect(toXml({ name: '<b>&</b>' })).toContain('<name>&lt;b&gt;&amp;&lt;/b&gt;</name>');
  });

  const Body = z.object({
    offer: z.object({
      title: z.string(),
      price: z.object({ amount: z.number().int(), currency_code: z.string() }),
      flag: z.boolean().optional(),
      headlines: z.array(z.string()),
      custom_attributes: z.array(z.object({ name: z.string(), value: z.string() })),
      original_media: z.array(z.object({ id: z.string() })),
    }),
  });

  it('reads an XML body into the same object as its JSON twin', () => {
    const xml = `<?xml version="1.0"?><offer><title>T</title><price><amount>1500</amount><currency_code>USD</currency_code></price>
      <flag>true</flag><headlines><headline>one</headline><headline>two</headline></headlines>
      <custom_attributes><custom_attribute><name>n</name><value>v</value></custom_attribute></custom_attributes><original_media/></offer>`;
    const value = coerceXmlToSchema(Body, parseXml(xml));
    expect(Body.parse(value)).toEqual({
      offer: {
        title: 'T',
        price: { amount: 1500, currency_code: 'USD' },
        flag: true,
        headlines: ['one', 'two'],
        custom_attributes: [{ name: 'n', value: 'v' }],
        original_media: [],
      },
    });
  });

  it('reads any element inside a list wrapper as an item, even a single one', () => {
    const value = coerceXmlToSchema(
      Body.shape.offer,
      parseXml('<offer><headlines><whatever>only</whatever></headlines></offer>').offer,
    ) as { headlines: string[] };
    expect(value.headlines).toEqual(['only']);
  });

  it('leaves values that do not fit for the schema to refuse', () => {
    const value = coerceXmlToSchema(Body.shape.offer, parseXml('<offer><price><amount>12abc</amount></price></offer>').offer);
    expect((value as { price: { amount: unknown } }).price.amount).toBe('12abc');
  });

  it('refuses an element repeated where the resource holds one value, naming it', () => {
    const twice = () =>
      coerceXmlToSchema(
        Body,
        parseXml('<offer><title>a</title><price><amount>1</amount><amount>2</amount></price><title>b</title></offer>'),
      );
    expect(twice).toThrow(RepeatedXmlElement);
    expect(twice).toThrow('element <title> appears 2 times; it may appear once');
    const wrappers = () => coerceXmlToSchema(Body, parseXml('<offer><headlines><headline>a</headline></headlines><headlines/></offer>'));
    expect(wrappers).toThrow(expect.objectContaining({ path: 'offer.headlines', count: 2 }));
    const inItem = () =>
      coerceXmlToSchema(Body, parseXml('<offer><custom_attributes><c><name>a</name><name>b</name></c></custom_attributes></offer>'));
    expect(inItem).toThrow(expect.objectContaining({ path: 'offer.custom_attributes.0.name' }));
  });

  it.each([
    ['elements left open', '<offer><title>x', 'malformed XML: elements <offer> and <title> are never closed'],
    ['one element left open', '<offer><title>x</title>', 'malformed XML: line 1: element <offer> is never closed'],
    [
      'a wrong closing tag',
      '<offer>\n<title>x</offer>',
      'malformed XML: line 2: </offer> found where <title> (opened on line 2) should be closed',
    ],
    ['a closing tag never opened', '</offer>', 'malformed XML: line 1: </offer> closes an element that was never opened'],
    ['a bare ampersand', '<offer>A & B</offer>', "malformed XML: line 1: a bare '&' (write it as &amp;)"],
    ['text outside any element', 'offer', "malformed XML: line 1: 'o' outside any element"],
    ['nothing', '', 'malformed XML: line 1: no element found'],
    ['an invalid element name', '<offer><1st/></offer>', 'malformed XML: line 1: <1st> is not a valid element name'],
  ])('says what is wrong with %s in plain words', (_name, xml, message) => {
    expect(() => parseXml(xml)).toThrow(message);
    expect(() => parseXml(xml)).not.toThrow(/Invalid|\[|found\.|tag '/);
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE lolz [<!ENTITY lol "lol">]><offer>&lol;</offer>', /DOCTYPE/],
    ['an external entity', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><offer>&e;</offer>', /DOCTYPE/],
    ['malformed markup', '<offer><title>x</offer>', /malformed/],
    ['two roots', '<a/><b/>', /malformed|root/],
    ['deep nesting', `${'<a>'.repeat(100)}${'</a>'.repeat(100)}`, /deeper/],
  ])('refuses %s', (_name, xml, message) => {
    expect(() => parseXml(xml)).toThrow(message);
  });
});
