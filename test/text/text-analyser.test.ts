import { MenuMatcher } from '../../src/modules/text/dish-matcher.rules.js';
import { TextAnalyser } from '../../src/modules/text/text-analyser.rules.js';

const analyser = TextAnalyser.builtIn();
const read = (text: string, menu?: MenuMatcher) => analyser.analyse(text, menu);
const themes = (text: string) => Object.fromEntries(read(text).themes.map((t) => [t.theme, t.sentiment]));

describe('language', () => {
  it.each([
    ['The food was lovely and the staff were kind.', 'en'],
    ['کھانا بہت مزیدار تھا', 'ur'],
    ['khana thanda tha aur bohat mehnga bhi', 'ur-Latn'],
    ['Food was great lekin service slow thi', 'mixed'],
    ['کھانا اچھا تھا but the service was slow', 'mixed'],
  ])('%s is %s', (text, language) => expect(read(text).language).toBe(language));
});

describe('sentiment', () => {
  it('scores from -1 to 1 with a label', () => {
    const good = read('Excellent food, amazing staff!');
    const bad = read('Terrible, rude and dirty.');
    expect(good.sentiment.label).toBe('positive');
    expect(bad.sentiment.label).toBe('negative');
    expect(good.sentiment.score).toBeGreaterThan(0);
    expect(good.sentiment.score).toBeLessThanOrEqual(1);
    expect(bad.sentiment.score).toBeGreaterThanOrEqual(-1);
    expect(read('I ordered a club sandwich.').sentiment).toEqual({ score: 0, label: 'neutral' });
  });

  it.each([
    ['The food was not good', 'negative'],
    ['The food was not bad at all', 'positive'],
    ['khana acha nahi tha', 'negative'],
    ['khana bura nahi tha', 'positive'],
    ['کھانا اچھا نہیں تھا', 'negative'],
    ['کوئی مسئلہ نہیں', 'positive'],
  ])('negation: %s is %s', (text, label) => expect(read(text).sentiment.label).toBe(label));

  it.each([
    ['A bit slow, but the food was delicious', 'positive'],
    ['The food was delicious but the wait was unbearable and the waiter rude', 'negative'],
    ['khana mazedar tha lekin bohat mehnga', 'negative'],
    ['rate thoray zyada hain magar khana wakai acha hai', 'positive'],
    ['The steak was awful, although the sides were nice', 'negative'],
  ])('the clause after a contrast weighs more: %s is %s', (text, label) => expect(read(text).sentiment.label).toBe(label));

  it('reads Roman Urdu however it is spelled, and English slips', () => {
    for (const text of ['bohat acha tha', 'bohot acha tha', 'bht achaaa tha', 'bahut accha tha'])
      expect([text, read(text).sentiment.label]).toEqual([text, 'positive']);
    for (const text of ['bohat mehenga', 'bht mahenga', 'mehanga tha']) expect([text, themes(text)]).toEqual([text, { price: 'negative' }]);
    expect(themes('Delicous food and very helpfull staff')).toEqual({ food: 'positive', staff: 'positive' });
  });
});

describe('themes', () => {
  it('finds each theme with its own sentiment and the words that carry it', () => {
    const analysis = read('The biryani was delicious but the waiter was rude and the bill was overpriced');
    expect(analysis.themes).toEqual([
      { theme: 'food', sentiment: 'positive', words: ['biryani', 'delicious'] },
      { theme: 'staff', sentiment: 'negative', words: ['waiter', 'rude'] },
      { theme: 'price', sentiment: 'negative', words: ['bill', 'overpriced'] },
    ]);
    expect(read('khana thanda tha').themes).toEqual([{ theme: 'food', sentiment: 'negative', words: ['khana', 'thanda'] }]);
  });

  it.each([
    ['We waited an hour for our table', { speed: 'negative' }],
    ['The toilets were filthy', { cleanliness: 'negative' }],
    ['Lovely music and cosy seating', { ambience: 'positive' }],
    ['They forgot the raita and the drink was wrong', { accuracy: 'negative' }],
    ['The rider was late and the packaging torn', { delivery: 'negative' }],
    ['ویٹر بہت بدتمیز تھا', { staff: 'negative' }],
    ['صفائی کا انتظام بہت اچھا ہے', { cleanliness: 'positive' }],
    ['qeemat munasib hai', { price: 'positive' }],
  ])('%s', (text, expected) => expect(themes(text)).toEqual(expected));

  it("takes a business's own words, own themes and switched-off themes at once", () => {
    const text = 'Parking was a nightmare and the gaadi wala was rude; khana thanda tha';
    expect(themes(text)).toEqual({ staff: 'negative', food: 'negative' });
    const own = TextAnalyser.for({
      words: [
        { theme: 'parking', language: 'en', words: ['parking', 'car park'] },
        { theme: 'parking', language: 'ur-Latn', words: ['gaadi wala'] },
        { theme: 'staff', language: 'ur-Latn', words: ['bawarchi'] },
      ],
      off: ['food'],
    });
    const analysis = own.analyse(text);
    expect(Object.fromEntries(analysis.themes.map((t) => [t.theme, t.sentiment]))).toEqual({ parking: 'negative', staff: 'negative' });
    expect(analysis.themes.find((t) => t.theme === 'parking')!.words).toEqual(['parking', 'nightmare', 'gaadi', 'wala']);
    expect(own.analyse('bawarchi ne kamaal kar diya').themes).toEqual([{ theme: 'staff', sentiment: 'positive', words: ['bawarchi', 'kamaal'] }]);
    expect(own.analyse('The car park was full').themes.map((t) => t.theme)).toEqual(['parking']);
    // The built-in analyser is untouched by another business's settings.
    expect(themes(text)).toEqual({ staff: 'negative', food: 'negative' });
  });
});

describe('dishes', () => {
  const menu = new MenuMatcher([
    { id: 'mi_1', name: 'Chicken Biryani' },
    { id: 'mi_2', name: 'Karahi' },
    { id: 'mi_3', name: 'Kheer' },
    { id: 'mi_4', name: 'Garlic Naan' },
  ]);
  const dishes = (text: string) => read(text, menu).dishes.map((d) => [d.menuItem, d.sentiment]);

  it('matches the menu across spellings and scripts, each dish with its sentiment', () => {
    expect(dishes('The chicken biryani was amazing')).toEqual([['mi_1', 'positive']]);
    expect(dishes('biriyani bohat mazedar thi')).toEqual([['mi_1', 'positive']]);
    expect(dishes('briyani was cold')).toEqual([['mi_1', 'negative']]);
    expect(dishes('بریانی بہت مزیدار تھی')).toEqual([['mi_1', 'positive']]);
    expect(dishes('کھیر ٹھنڈی نہیں تھی مگر کڑاہی باسی تھی')).toEqual([
      ['mi_3', 'positive'],
      ['mi_2', 'negative'],
    ]);
    expect(dishes('karahi zabardast thi, kheer bekar')).toEqual([
      ['mi_2', 'positive'],
      ['mi_3', 'negative'],
    ]);
    expect(read('Loved the garlic naan', menu).dishes).toEqual([{ name: 'Garlic Naan', menuItem: 'mi_4', sentiment: 'positive' }]);
  });

  it('does not take words that only share consonants with a dish', () => {
    expect(dishes("They couldn't care less, the core problem is the crew")).toEqual([]);
  });
});

describe('any text', () => {
  const menu = new MenuMatcher([
    { id: 'mi_1', name: 'Chicken Biryani' },
    { id: 'mi_2', name: 'نہاری' },
  ]);
  const pieces = [
    'khana',
    'thanda',
    'nahi',
    'lekin',
    'not',
    'but',
    'bohat',
    'acha',
    'کھانا',
    'نہیں',
    'بہت',
    'مگر',
    'biryani',
    '!',
    ',',
    '۔',
    '😀',
    "didn't",
    'x'.repeat(40),
    '\n',
    ' ',
  ];

  it('is answered, never thrown: a score within -1..1 that agrees with its label, themes and dishes well formed', async () => {
    const { default: fc } = await import('fast-check');
    const text = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((p) => p.join(' ')),
    );
    fc.assert(
      fc.property(text, (t) => {
        const a = analyser.analyse(t, menu);
        expect(['en', 'ur', 'ur-Latn', 'mixed']).toContain(a.language);
        expect(a.sentiment.score).toBeGreaterThanOrEqual(-1);
        expect(a.sentiment.score).toBeLessThanOrEqual(1);
        expect(a.sentiment.label).toBe(a.sentiment.score >= 0.1 ? 'positive' : a.sentiment.score <= -0.1 ? 'negative' : 'neutral');
        for (const theme of a.themes) expect(theme.words.length).toBeGreaterThan(0);
        expect(new Set(a.themes.map((th) => th.theme)).size).toBe(a.themes.length);
        for (const dish of a.dishes) expect(['mi_1', 'mi_2']).toContain(dish.menuItem);
      }),
      { numRuns: 300 },
    );
  });
});
