import { parseXml, toXml, XmlInputError } from '../../schemas/xml';

describe('XML text round-trips with its special characters', () => {
  it('decodes predefined entities and character references, once', () => {
    const parsed = parseXml(
      '<comment><content>Maria &amp; Co &lt;b&gt; &quot;q&quot; &apos;s&apos; &#38; &#x26; &amp;lt;</content></comment>',
    );
    expect(parsed).toEqual({ comment: { content: `Maria & Co <b> "q" 's' & & &lt;` } });
  });

  it('escapes on the way out so a parse of the answer gives the same text', () => {
    const text = 'a & b <c> &amp;';
    const xml = toXml({ comment: { content: text } });
    expect(xml).toContain('<content>a &amp; b &lt;c&gt; &amp;amp;</content>');
    expect((parseXml(xml) as { response: { comment: { content: string } } }).response.comment.content).toBe(text);
  });

  it('still refuses entity declarations', () => {
    expect(() => parseXml('<!DOCTYPE x [<!ENTITY e "boom">]><comment>&e;</comment>')).toThrow(XmlInputError);
  });
});
