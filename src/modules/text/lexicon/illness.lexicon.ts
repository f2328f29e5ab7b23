/**
 * Words of illness or allergy: a text holding one (as whole words, shared/keywords.ts) opens an `urgent` case
 * whatever the rest says, a built-in alert rule of every business (docs/cases.md). English, Roman Urdu in its usual
 * spellings, Urdu script. Written by the team (CC0).
 */
export const ILLNESS_WORDS: readonly string[] = [
  // English
  'food poisoning', 'poisoning', 'poisoned', 'allergic', 'allergy', 'allergies', 'allergic reaction', 'anaphylaxis',
  'sick', 'vomit', 'vomited', 'vomiting', 'threw up', 'throwing up', 'diarrhea', 'diarrhoea', 'stomach ache',
  'stomach upset', 'upset stomach', 'nausea', 'hospital', 'hospitalised', 'hospitalized',
  // Roman Urdu
  'ulti', 'ultee', 'ultiyan', 'ulti hui', 'ulti aayi', 'ulti ayi', 'bimar', 'beemar', 'bemar', 'bimari', 'beemari', 'bemari',
  'pait kharab', 'pet kharab', 'pait dard', 'pet dard', 'allergy hui', 'hospital gaye',
  // Urdu script
  'بیمار', 'بیماری', 'الٹی', 'الٹیاں', 'الرجی', 'پیٹ خراب', 'پیٹ درد', 'اسہال', 'ہسپتال',
];
