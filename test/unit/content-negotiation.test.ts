import { answerFormat } from '../../api/plugins/content-negotiation';

describe('the answer format (Accept, read with q-values)', () => {
  it('never picks a type the client gave q=0', () => {
    expect(answerFormat('application/xml;q=0, application/json')).toBe('json');
    expect(answerFormat('application/json, application/xml;q=0')).toBe('json');
    expect(answerFormat('application/json;q=0, application/xml')).toBe('xml');
    expect(answerFormat('text/xml;q=0, application/xml;q=0, */*')).toBe('json');
  });

  it('follows the q-values, then the order the client wrote', () => {
    expect(answerFormat('application/json;q=0.5, application/xml;q=0.9')).toBe('xml');
    expect(answerFormat('application/xml;q=0.4, application/json;q=0.8')).toBe('json');
    expect(answerFormat('application/xml, application/json')).toBe('xml');
    expect(answerFormat('application/json, application/xml')).toBe('json');
    expect(answerFormat('text/xml')).toBe('xml');
    expect(answerFormat('Application/XML')).toBe('xml');
  });

  it('answers JSON to a wildcard, and a specific type beats a wildcard', () => {
    expect(answerFormat('*/*')).toBe('json');
    expect(answerFormat('application/*')).toBe('json');
    expect(answerFormat('text/*')).toBe('xml');
    expect(answerFormat('*/*;q=0.1, application/xml')).toBe('xml');
    // A browser's header: XML is named, JSON only by the weaker */*.
    expect(answerFormat('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe('xml');
  });

  it('answers JSON, never 406, when nothing acceptable is offered or the header says nothing', () => {
    expect(answerFormat(undefined)).toBe('json');
    expect(answerFormat('')).toBe('json');
    expect(answerFormat('image/png')).toBe('json');
    expect(answerFormat('application/xml;q=0')).toBe('json');
    expect(answerFormat('not a media type;;;q=x')).toBe('json');
  });

  it('lets a .xml or .json suffix win over Accept', () => {
    expect(answerFormat('application/json', 'xml')).toBe('xml');
    expect(answerFormat('application/xml', 'json')).toBe('json');
  });
});
