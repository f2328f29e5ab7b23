import { keywordMatcher, wordsOf } from './keywords.js';

describe('keywordMatcher', () => {
  const match = (keywords: string[], text: string) => keywordMatcher(keywords)(wordsOf(text));

  it('matches whole words whatever their case and accents', () => {
    expect(match(['allergic'], 'I was ALLERGIC to it.')).toBe('allergic');
    expect(match(['allergic'], 'Allérgic reaction')).toBe('allergic');
    expect(match(['café'], 'the CAFE was cold')).toBe('café');
  });

  it('does not match a keyword inside another word', () => {
    expect(match(['ill'], 'the grill was great, will return')).toBeNull();
    expect(match(['ill'], 'I fell ill after dinner')).toBe('ill');
  });

  it('matches a phrase as consecutive words only', () => {
    expect(match(['food poisoning'], 'Food  poisoning, surely!')).toBe('food poisoning');
    expect(match(['food poisoning'], 'food was fine, no poisoning')).toBeNull();
  });

  it('matches Urdu with or without harakat, in Arabic or Urdu letter forms', () => {
    expect(match(['بیمار'], 'کھانے کے بعد میں بیمار ہو گیا')).toBe('بیمار');
    // Arabic yeh (ي) for the Urdu one (ی), and a zer written over a letter.
    expect(match(['بیمار'], 'میں بيمار ہو گیا')).toBe('بیمار');
    expect(match(['بیمار'], 'میں بِیمار ہو گیا')).toBe('بیمار');
    expect(match(['گندا'], 'کھانا بہت گندہ تھا')).toBeNull();
    expect(match(['بیمار'], 'بیماری')).toBeNull();
  });

  it('gives the first keyword found, and nothing for no keywords', () => {
    expect(match(['cold', 'rude'], 'rude staff, cold food')).toBe('cold');
    expect(match([], 'anything')).toBeNull();
    expect(match(['  '], 'anything')).toBeNull();
  });

  it('splits words at punctuation and spaces', () => {
    expect(wordsOf("Don't—ever: again!")).toEqual(['don', 't', 'ever', 'again']);
  });
});
