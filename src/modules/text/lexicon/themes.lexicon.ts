/**
 * The built-in themes and the words that name them in each way guests write. A word marked `~` is weak: it names the
 * theme only when something good or bad is said of it ("the bill was shocking" is price, "took forever to get the
 * bill" is not). Dishes are weak food words. Keys as the analyser folds them; Roman Urdu in its normalised spelling.
 * Written by the team (CC0).
 */
import { BUILT_IN_THEMES } from '../../../shared/themes.js';

export { BUILT_IN_THEMES };
export type BuiltInTheme = (typeof BUILT_IN_THEMES)[number];

type Words = { en: string[]; ur: string[]; 'ur-Latn': string[] };

export const THEME_WORDS: Record<BuiltInTheme, Words> = {
  food: {
    en: ['food', 'meal', 'meals', 'dish', 'dishes', 'taste', 'tasted', 'tastes', 'flavour', 'flavor', 'portion', 'portions', 'cooked', 'spicy',
      'seasoning', 'delicious', 'tasty', 'yummy', 'bland', 'tasteless', 'flavourless', 'salty', 'oily', 'greasy', 'soggy', 'stale', 'undercooked',
      'overcooked', 'raw', 'burnt', 'chewy', 'dry', 'fresh', 'crispy', 'juicy', 'tender', 'flavourful', 'flavorful', 'inedible', 'cold', 'lukewarm',
      'rotten', 'spoiled', 'mushy', 'watery', 'spiced', 'quality', '~cook', '~chef', '~kitchen'],
    'ur-Latn': ['khana', 'khane', 'zaiqa', 'taste', 'mazedar', 'lazeez', 'namak', 'mirch', 'masala', 'salan', 'pheeka', 'pheeki', 'basi', 'kache',
      'kacha', 'kachi', 'khushk', 'quantity', 'portion', 'thanda', 'thandi', 'thande', 'tel', 'jali', 'jala', 'taaza', 'garam', 'maza'],
    ur: ['کھانا', 'کھانے', 'ذائقہ', 'مزیدار', 'لذیذ', 'نمک', 'مرچ', 'مصالحہ', 'سالن', 'پھیکا', 'پھیکی', 'باسی', 'کچے', 'کچا', 'کچی', 'سوکھا',
      'مقدار', 'ٹھنڈا', 'ٹھنڈی', 'ٹھنڈے', 'تیل', 'جلا', 'تازہ', 'گرم', 'مزے', 'مزہ'],
  },
  speed: {
    en: ['wait', 'waited', 'waiting', 'slow', 'slowly', 'fast', 'quick', 'quickly', 'prompt', 'promptly', 'speedy', 'minutes', 'mins', 'hour',
      'hours', 'forever', 'ages', 'delay', 'delayed', 'late', 'speed', 'efficient', 'immediately'],
    'ur-Latn': ['intezar', 'der', 'jaldi', 'foran', 'ghanta', 'ghante', 'minute', 'minat', 'sust', 'susti', 'slow', 'fast', 'late', 'tez'],
    ur: ['انتظار', 'دیر', 'جلدی', 'فوراً', 'فورا', 'گھنٹہ', 'گھنٹے', 'منٹ', 'سست', 'تیز'],
  },
  staff: {
    en: ['staff', 'waiter', 'waiters', 'waitress', 'server', 'servers', 'manager', 'cashier', 'host', 'hostess', 'employee', 'employees', 'crew',
      'behaviour', 'behavior', 'attitude', 'rude', 'friendly', 'polite', 'courteous', 'helpful', 'attentive', 'welcoming', 'unprofessional',
      'unhelpful', 'patient', 'kind', 'ignored', 'ignoring', 'impolite', 'arrogant', 'respectful', 'hospitable', '~service', '~team'],
    'ur-Latn': ['staff', 'waiter', 'manager', 'cashier', 'rawaiya', 'akhlaq', 'tameez', 'badtameez', 'badtameezi', 'behaviour', 'izzat', 'madad',
      '~bhai', '~service'],
    ur: ['عملہ', 'عملے', 'ویٹر', 'بیرے', 'بیرا', 'مینیجر', 'کیشیئر', 'رویہ', 'اخلاق', 'تمیز', 'بدتمیز', 'بدتمیزی', 'عزت', 'مدد', 'مددگار', '~سروس'],
  },
  cleanliness: {
    en: ['clean', 'cleanliness', 'dirty', 'filthy', 'hygiene', 'hygienic', 'unhygienic', 'washroom', 'bathroom', 'toilet', 'restroom', 'spotless',
      'sticky', 'stained', 'dusty', 'cockroach', 'cockroaches', 'flies', 'rats', 'hair', 'smell', 'smelled', 'stink', 'tidy', 'soap', 'germs',
      'disgusting', 'cleaner'],
    'ur-Latn': ['saaf', 'safai', 'ganda', 'gandi', 'gande', 'makhi', 'makhiyan', 'badboo', 'washroom', 'daagh', 'chamak', 'suthri', 'suthra',
      'cockroach'],
    ur: ['صاف', 'صفائی', 'گندا', 'گندی', 'گندے', 'مکھیاں', 'مکھی', 'بدبو', 'داغ', 'چمک', 'ستھری', 'ستھرا', 'کاکروچ', 'واش'],
  },
  price: {
    en: ['price', 'prices', 'priced', 'pricey', 'expensive', 'cheap', 'affordable', 'overpriced', 'value', '~money', 'cost', 'costly', 'reasonable',
      'reasonably', 'worth', 'paid', 'charged', 'overcharged', 'deal', 'deals', 'rupees', '~bill', '~pay'],
    'ur-Latn': ['qeemat', 'price', 'rate', 'rates', 'mehnga', 'mehngi', 'mehnge', 'sasta', 'sasti', 'paisay', 'paisa', 'charge', 'deal', 'wasool',
      'munasib', '~bill'],
    ur: ['قیمت', 'قیمتیں', 'مہنگا', 'مہنگی', 'مہنگے', 'سستا', 'سستی', 'پیسے', 'پیسوں', 'ریٹ', 'وصول', 'مناسب', '~بل'],
  },
  ambience: {
    en: ['ambience', 'ambiance', 'atmosphere', 'vibe', 'decor', 'decoration', 'music', 'seating', 'seats', 'chairs', 'lighting', 'view', 'rooftop',
      'garden', 'interior', 'noisy', 'loud', 'cramped', 'stuffy', 'cosy', 'cozy', 'ac', 'crowded', 'environment', 'setting', 'furniture',
      'dark', 'temperature', '~place', '~inside'],
    'ur-Latn': ['mahol', 'music', 'shor', 'sajawat', 'roshni', 'garmi', 'ac', 'pankha', 'baithne', 'view', 'decor', 'seating', '~jagah', '~andar'],
    ur: ['ماحول', 'موسیقی', 'شور', 'سجاوٹ', 'روشنی', 'گرمی', 'پنکھا', 'بیٹھنے', '~جگہ', '~اندر'],
  },
  accuracy: {
    en: ['wrong', 'missing', 'forgot', 'forgotten', 'incorrect', 'incomplete', 'mistake', 'instead', 'accurate', 'correct', '~ordered', '~asked'],
    'ur-Latn': ['ghalat', 'galti', 'bhool', 'missing', 'complete', 'sahi', '~bheji', '~bheja', '~bhejna', '~manga', '~mangwaye'],
    ur: ['غلط', 'غلطی', 'بھول', 'صحیح', 'درست', '~منگوایا', '~منگوائے', '~بھیجا', '~بھیجی', '~بھیج'],
  },
  delivery: {
    en: ['delivery', 'delivered', 'rider', 'driver', 'courier', 'packaging', 'packed', 'packing', 'parcel', '~arrived', '~address'],
    'ur-Latn': ['delivery', 'rider', 'packing', 'pohncha', 'pohnchi', 'parcel'],
    ur: ['ڈیلیوری', 'رائڈر', 'پیکنگ', 'پہنچا', 'پہنچی', 'پہنچ'],
  },
};

/** Dishes guests name without a menu at hand: weak food words. */
export const DISH_WORDS: Words = {
  en: ['biryani', 'karahi', 'naan', 'nihari', 'haleem', 'tikka', 'kebab', 'kebabs', 'kabab', 'seekh', 'pulao', 'daal', 'dal', 'raita', 'burger',
    'burgers', 'pizza', 'fries', 'sandwich', 'soup', 'steak', 'rice', 'roti', 'paratha', 'samosa', 'kheer', 'chai', 'tea', 'coffee', 'paneer',
    'chicken', 'mutton', 'beef', 'bun', 'patty', 'dessert', 'salad', 'chutney', 'korma', 'qorma', 'pakora', 'halwa', 'lassi', 'sides', 'pasta',
    'noodles', 'wings', 'shawarma', 'kulfi', 'jamun', 'cold coffee', 'cold drink', 'cold drinks'],
  'ur-Latn': ['chawal', 'salan', 'samosay', 'roti', 'tikka', 'kabab', 'chai'],
  ur: ['بریانی', 'کڑاہی', 'نان', 'نہاری', 'حلیم', 'تکہ', 'کباب', 'پلاؤ', 'دال', 'رائتہ', 'برگر', 'پیزا', 'فرائز', 'چاول', 'روٹی', 'پراٹھا', 'سموسے',
    'سموسہ', 'کھیر', 'چائے', 'چکن', 'مٹن', 'بیف', 'قورمہ'],
};

/**
 * A comment naming the first theme lends it the second's words: "the rider was late" is about delivery, not the
 * kitchen's speed, and "the rider was rude" about delivery, not the restaurant's staff.
 */
export const ABSORBS: Partial<Record<BuiltInTheme, BuiltInTheme[]>> = { delivery: ['speed', 'staff'] };
