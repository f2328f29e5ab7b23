/**
 * The small words that decide how the others count: which language a clause is in, what negates, what intensifies,
 * where a contrast starts. Keys folded as the analyser folds text; Roman Urdu in its normalised spelling.
 */

/** English words that Roman Urdu does not borrow; verbs weigh more (a clause's verb tells its language best). */
export const ENGLISH_MARKERS: Record<string, number> = Object.fromEntries([
  ...['was', 'were', 'is', 'are', 'am', 'had', 'have', 'has', 'did', 'does', 'will', 'would', 'could', 'should', 'came', 'got', 'took', 'went',
    'get', 'been', 'be', 'made', 'felt', 'seemed', 'asked', 'sent', 'received', 'arrived', 'loved', 'enjoyed', 'found', 'went', 'gave', 'can']
    .map((w) => [w, 2]),
  ...['the', 'a', 'an', 'and', 'but', 'very', 'not', 'it', 'this', 'that', 'i', 'we', 'my', 'our', 'they', 'their', 'of', 'to', 'for', 'with',
    'so', 'too', 'really', 'never', 'always', 'there', 'you', 'your', 'me', 'us', 'what', 'when', 'at', 'on', 'in', 'from', 'by', 'as', 'just',
    'even', 'also', 'again', 'after', 'before', 'only', 'no', 'nothing', 'all', 'out', 'up', 'which', 'who', 'he', 'she', 'his', 'her', 'them',
    'than', 'then', 'if', 'or', 'because', 'while', 'any', 'some', 'about', 'over', 'under', 'here', 'everything', 'one', 'definitely', 'totally',
    'honestly', 'actually', 'quite', 'bit', 'much', 'more', 'most', 'how', 'why', 'its', 'such', 'by', 'been', 'were']
    .map((w) => [w, 1]),
]);

/** Roman Urdu's grammar words (its lexicon words count too). */
export const ROMAN_URDU_MARKERS: Record<string, number> = Object.fromEntries([
  ...['hai', 'hain', 'tha', 'thi', 'thay', 'thin', 'tho', 'hua', 'hui', 'hoi', 'gaya', 'gayi', 'gaye', 'aya', 'aaya', 'ayi', 'aayi', 'aaye', 'kiya',
    'kiye', 'diya', 'diye', 'raha', 'rahi', 'rahe', 'karna', 'karta', 'karte', 'kar', 'para', 'pari', 'laga', 'lagi', 'mila', 'mili', 'hona',
    'chahiye', 'aayenge', 'milte', 'lagta']
    .map((w) => [w, 2]),
  ...['ka', 'ki', 'ke', 'ko', 'se', 'mein', 'nahi', 'bhi', 'aur', 'lekin', 'magar', 'kya', 'koi', 'kuch', 'ye', 'yeh', 'wo', 'woh', 'hum', 'ham',
    'mujhe', 'humein', 'hamein', 'hamari', 'hamara', 'apna', 'bohat', 'bilkul', 'zyada', 'sab', 'sath', 'liye', 'pe', 'wala', 'wali', 'itna',
    'itne', 'sirf', 'phir', 'kabhi', 'hamesha', 'yahan', 'wahan', 'ne', 'hi', 'jo', 'ek', 'yaar', 'sahab', 'bhai', 'mene', 'maine', 'kaun',
    'baad', 'andar', 'bahar', 'dono', 'wapas', 'ghar', 'jaisa', 'jaisi', 'saara', 'thora', 'thoray', 'kaafi', 'wakai', 'dafa', 'pehli', 'utna',
    'aadha', 'baat', 'hisaab', 'zaroor', 'dobara', 'unmein', 'kisi', 'log', 'cheez', 'waqt']
    .map((w) => [w, 1]),
]);

/**
 * Words of restaurant talk that are neither judgements nor themes, so that the search for a misspelt word leaves
 * them as they are ("plate" is not "late", "order" not "rider").
 */
export const PLAIN_WORDS = ['order', 'orders', 'ordered', 'plate', 'plates', 'table', 'tables', 'glass', 'glasses', 'served', 'serve', 'house',
  'chair', 'place', 'water', 'drink', 'drinks', 'there', 'three', 'twice', 'other', 'again', 'after', 'first', 'people', 'family', 'friends',
  'kids', 'children', 'evening', 'night', 'lunch', 'dinner', 'breakfast', 'these', 'those', 'where', 'every', 'tried', 'found',
  // Roman Urdu
  'intezam', 'halat', 'hisaab', 'kaam', 'cheez', 'jagah', 'tareeqay', 'tareeqa', 'bachay', 'ghar', 'sath', 'wapas', 'dekh', 'lene'];

/** Negators; English ones reach forward, Urdu ones (after the verb or adjective they negate) backward first. */
export const ENGLISH_NEGATORS = new Set(['not', 'no', 'never', 'nothing', 'nobody', 'none', 'without', 'neither', 'nor', 'hardly', 'cannot']);
export const URDU_NEGATORS = new Set(['nahi', 'na', 'mat', 'نہیں', 'نہ', 'مت']);

/** Multipliers of the next sentiment word within two words. */
export const INTENSIFIERS: Record<string, number> = {
  very: 1.5, so: 1.4, too: 1.5, really: 1.4, extremely: 1.8, super: 1.5, absolutely: 1.6, totally: 1.5, incredibly: 1.7, truly: 1.4,
  highly: 1.4, quite: 1.2, painfully: 1.7, way: 1.3, most: 1.3, bit: 0.6, slightly: 0.6, little: 0.6, somewhat: 0.7,
  bohat: 1.5, bilkul: 1.4, kaafi: 1.2, intehai: 1.8, itna: 1.3, itne: 1.3, sakht: 1.5, thora: 0.6, thoray: 0.6, thoda: 0.6,
  بہت: 1.5, بالکل: 1.4, انتہائی: 1.8, کافی: 1.2, اتنا: 1.3, اتنے: 1.3, تھوڑا: 0.6, تھوڑی: 0.6,
};

/** Words between a modifier and the word it modifies that do not break the link. */
export const FILLERS = new Set(['bhi', 'hi', 'a', 'the', 'at', 'all', 'ہی', 'بھی', 'too', 'that', 'as']);

/** A new clause that outweighs the one before it ("good, but slow"). */
export const CONTRASTS = new Set(['but', 'however', 'yet', 'except', 'lekin', 'magar', 'albatta', 'لیکن', 'مگر', 'البتہ']);
/** Contrasts only after a verb ends the clause before: otherwise "par" and "پر" mean "on" ("time par"). */
export const CONTRASTS_AFTER_VERB = new Set(['par', 'pr', 'پر']);
export const CLAUSE_ENDING_VERBS = new Set(['tha', 'thi', 'thay', 'hai', 'hain', 'تھا', 'تھی', 'تھے', 'ہے', 'ہیں']);
/** A clause that weighs less than its main one ("although the sides were nice"). */
export const CONCESSIVES = new Set(['although', 'though', 'despite', 'jabke', 'halanke', 'agarche', 'حالانکہ', 'اگرچہ']);
/** Clause breaks of equal weight. */
export const JOINERS = new Set(['and', 'aur', 'اور', 'plus']);
