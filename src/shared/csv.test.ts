import { csvCell, csvText } from './csv.js';

describe('csvCell', () => {
  it('defuses what a spreadsheet would run as a formula (OWASP: = + - @, tab, carriage return)', () => {
    expect(csvCell('=cmd|/c calc!A1')).toBe("'=cmd|/c calc!A1");
    expect(csvCell('=HYPERLINK("http://x.example","click")')).toBe(`"'=HYPERLINK(""http://x.example"",""click"")"`);
    expect(csvCell('+1+2')).toBe("'+1+2");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1+1')).toBe("'\t=1+1");
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
  });

  it('leaves numbers, negative ones included, and plain text as they are', () => {
    expect(csvCell('-4')).toBe('-4');
    expect(csvCell('-4.25')).toBe('-4.25');
    expect(csvCell('-1e3')).toBe('-1e3');
    expect(csvCell('42')).toBe('42');
    expect(csvCell('Lovely chai')).toBe('Lovely chai');
    expect(csvCell('a = b')).toBe('a = b');
    expect(csvCell('')).toBe('');
  });

  it('quotes a field with a comma, a quote or a line break (RFC 4180)', () => {
    expect(csvCell('4 / 2, warm')).toBe('"4 / 2, warm"');
    expect(csvCell('the "best"')).toBe('"the ""best"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
  });
});

describe('csvText', () => {
  it('writes each line with CRLF, the last included', () => {
    expect(
      csvText([
        ['id', 'comment'],
        ['sub_1', '=cmd'],
        ['sub_2', 'fine, thanks'],
      ]),
    ).toBe('id,comment\r\nsub_1,\'=cmd\r\nsub_2,"fine, thanks"\r\n');
  });
});
