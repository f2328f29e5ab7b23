/**
 * Word polarity, -3 (worst) to 3 (best), as a guest of a restaurant means it: "cold" and "late" are bad here. Written
 * by the team (CC0, like the fixture); keys are folded as the analyser folds text (lower case, no marks, Urdu letter
 * forms unified), Roman Urdu keys in the spelling roman-urdu.lexicon.ts normalises to. Phrases (several words)
 * are matched before single words.
 */
export const ENGLISH_SENTIMENT: Record<string, number> = {
  // food
  delicious: 3, tasty: 3, yummy: 3, flavourful: 3, flavorful: 3, scrumptious: 3, mouthwatering: 3, succulent: 2, tender: 2, juicy: 2,
  crispy: 2, crisp: 1, fresh: 2, hot: 1, warm: 1, perfectly: 2, perfect: 3, spiced: 1, authentic: 2, homemade: 2, generous: 2,
  bland: -2, tasteless: -3, flavourless: -3, flavorless: -3, salty: -2, oily: -2, greasy: -2, soggy: -2, stale: -3, cold: -2,
  lukewarm: -2, undercooked: -3, overcooked: -2, raw: -2, burnt: -2, burned: -2, chewy: -2, rubbery: -2, dry: -2, hard: -1,
  watery: -2, sour: -1, rotten: -3, spoiled: -3, inedible: -3, mushy: -2, soapy: -2, tiny: -1, small: -1, smelly: -2,
  // service and staff
  friendly: 3, polite: 2, courteous: 2, helpful: 2, attentive: 2, welcoming: 2, warmly: 2, kind: 2, patient: 2, professional: 2,
  efficient: 2, respectful: 2, caring: 2, cheerful: 2, smiling: 2, hospitable: 2, accommodating: 2,
  rude: -3, impolite: -3, arrogant: -3, unprofessional: -3, unhelpful: -2, careless: -2, ignored: -2, ignoring: -2, ignore: -2,
  confused: -1, distracted: -1, incompetent: -3, lazy: -2, shouted: -3, yelled: -3, argued: -2, demanded: -2, disrespectful: -3,
  // time
  fast: 2, quick: 2, quickly: 2, prompt: 2, promptly: 2, speedy: 2, swift: 2, punctual: 2, early: 1, immediately: 1,
  slow: -2, slowly: -2, late: -2, delayed: -2, delay: -2, forever: -2, ages: -2, waited: -1, waiting: -1, wait: -1, hour: -1, hours: -1,
  // cleanliness
  clean: 2, spotless: 3, hygienic: 2, tidy: 2, neat: 2, sparkling: 2, maintained: 1,
  dirty: -3, filthy: -3, unhygienic: -3, sticky: -2, stained: -2, dusty: -2, smelled: -1, stink: -3, stinks: -3,
  stinking: -3, cockroach: -3, cockroaches: -3, flies: -2, fly: -1, rats: -3, hair: -2, disgusting: -3, gross: -3, mess: -2, messy: -2,
  // price
  cheap: 1, affordable: 2, reasonable: 2, reasonably: 2, worth: 2, bargain: 2, economical: 2,
  expensive: -2, overpriced: -3, pricey: -1, costly: -2, overcharged: -3, ripoff: -3, shocking: -2,
  // ambience
  cosy: 2, cozy: 2, lovely: 3, beautiful: 3, stunning: 3, pleasant: 2, comfortable: 2, relaxing: 2, charming: 2, calm: 1, peaceful: 2,
  nice: 2, elegant: 2, spacious: 2, soft: 1,
  noisy: -2, loud: -2, cramped: -2, stuffy: -2, uncomfortable: -2, crowded: -1, dark: -1, dim: -1, boiling: -2, smoky: -2,
  // accuracy and delivery
  wrong: -2, missing: -2, forgot: -2, forgotten: -2, incorrect: -2, incomplete: -2, correct: 1, accurate: 2, exactly: 1,
  torn: -2, leaked: -2, leaking: -2, spilled: -2, spilt: -2, crushed: -2, damaged: -2,
  // general
  good: 2, great: 3, excellent: 3, amazing: 3, awesome: 3, fantastic: 3, wonderful: 3, superb: 3, outstanding: 3, brilliant: 3,
  best: 3, love: 3, loved: 3, enjoyed: 2, enjoy: 2, impressive: 2, impressed: 2, recommend: 2, recommended: 2, happy: 2, satisfied: 2,
  thanks: 1, thank: 1, fine: 1, decent: 1, ok: 0.5, okay: 0.5, alright: 0.5, justifies: 2, justify: 2, justified: 2, pleased: 2, glad: 2, favourite: 2, favorite: 2,
  bad: -2, poor: -2, terrible: -3, horrible: -3, awful: -3, worst: -3, pathetic: -3, disappointing: -2, disappointed: -2,
  unacceptable: -3, underwhelming: -2, mediocre: -1, meh: -1, hate: -3, hated: -3, sick: -3, ill: -2, complaint: -1, complaints: -1,
  complained: -1, problem: -1, problems: -1, issue: -1, issues: -1, worse: -2, useless: -2, waste: -2, sad: -2, upset: -2, angry: -2,
  annoyed: -2, annoying: -2, frustrating: -2, ruined: -3, nightmare: -3, apologise: 0, sorry: -1, unfortunately: -1, barely: -1,
};

export const ENGLISH_PHRASES: Record<string, number> = {
  'value for money': 2, 'worth it': 2, 'worth the price': 2, 'not worth': -2, 'waste of money': -3, 'rip off': -3, 'took forever': -3,
  'took ages': -3, 'on time': 2, 'in time': 1, 'come again': 2, 'coming back': 2, 'come back': 2, 'never again': -3, 'never got': -2,
  'never came': -2, 'never arrived': -3, 'never showed up': -3, 'nothing special': -0.5, 'could be better': -1, 'could be cleaner': -2,
  "couldn't care less": -3, 'cold drink': 0, 'cold drinks': 0, 'cold coffee': 0, 'well maintained': 2, 'made up for': 2, 'out of this world': 3, 'over priced': -3, 'too much': -1, 'no soap': -2,
  'food poisoning': -3, 'well done': 2, 'well packed': 2, 'no waiting': 2, 'you get what you pay for': -2, 'mixed up': -2,
  'too high': -2, 'went down': -2, 'gone down': -2, 'went up': -1, 'gone up': -1, 'smelled bad': -3, 'smells bad': -3, 'high chair': 0,
};

export const URDU_SENTIMENT: Record<string, number> = {
  اچھا: 2, اچھی: 2, اچھے: 2, بہترین: 3, زبردست: 3, لاجواب: 3, مزیدار: 3, لذیذ: 3, شاندار: 3, کمال: 3, عمدہ: 3, خوب: 2, پسند: 2,
  تازہ: 2, گرم: 1, صاف: 2, ستھری: 2, ستھرا: 2, مناسب: 2, سستا: 1, سستی: 1, خوشگوار: 2, خوبصورت: 3, پیاری: 2, پیارا: 2, آرام: 1,
  مددگار: 2, مدد: 2, تمیز: 2, عزت: 2, شکریہ: 1, جلدی: 2, جلد: 1, تیز: 2, فوراً: 1, فورا: 1, صحیح: 1, درست: 1, ٹھیک: 0.5, مزے: 2, مزہ: 2,
  خوش: 2, چمک: 2, بہتر: 1, محبت: 2, وصول: 2,
  برا: -2, بری: -2, برے: -2, بیکار: -3, بکواس: -3, گندا: -3, گندی: -3, گندے: -3, خراب: -3, ٹھنڈا: -2, ٹھنڈی: -2, ٹھنڈے: -2,
  باسی: -3, کچے: -2, کچا: -2, کچی: -2, سوکھا: -2, پھیکا: -2, پھیکی: -2, مہنگا: -2, مہنگی: -2, مہنگے: -2, دیر: -2, سست: -2,
  انتظار: -1, بدتمیز: -3, بدتمیزی: -3, غلط: -2, بدبو: -3, بو: -1, مکھیاں: -2, مکھی: -2, کاکروچ: -3, شور: -2, تنگ: -2, گرمی: -1,
  مسئلہ: -1, شکایت: -1, افسوس: -2, ناراض: -2, تکلیف: -2, بیمار: -3, جلا: -2, جلی: -2, گھنٹہ: -1, گھنٹے: -1, نمک: 0, بھول: -2,
  پروا: 1, زیادہ: 0, کم: -1, اونچی: -1, بدترین: -3, ناقص: -3,
};

export const URDU_PHRASES: Record<string, number> = {
  'پیسے وصول': 3, 'ہوش اڑ': -3, 'دوبارہ ضرور': 2, 'دوبارہ نہیں': -3, 'کچھ خاص نہیں': -0.5, 'وقت پر': 2, 'نمک زیادہ': -2,
  'نمک بہت زیادہ': -2, 'بہت زیادہ': -1, 'خوش اخلاق': 3, 'آرام دہ': 2, 'ٹھیک ٹھاک': 0.5, 'مزے کی': 3, 'گرم گرم': 2,
};

export const ROMAN_URDU_SENTIMENT: Record<string, number> = {
  acha: 2, achi: 2, ache: 2, behtareen: 3, zabardast: 3, lajawab: 3, mazedar: 3, lazeez: 3, shandar: 3, kamaal: 3, umda: 3,
  khoob: 2, pasand: 2, taaza: 2, garam: 1, saaf: 2, suthri: 2, suthra: 2, munasib: 2, sasta: 1, sasti: 1, khushgawar: 2,
  khoobsurat: 3, pyari: 2, pyara: 2, aaram: 1, madad: 2, tameez: 2, izzat: 2, shukriya: 1, jaldi: 2, foran: 2, tez: 2, sahi: 1,
  durust: 1, theek: 0.5, maza: 2, khush: 2, chamak: 2, behtar: 1, wasool: 2, meetha: 1, mehrbani: 1,
  bura: -2, buri: -2, bure: -2, bekar: -3, bakwas: -3, ganda: -3, gandi: -3, gande: -3, kharab: -3, thanda: -2, thandi: -2,
  thande: -2, basi: -3, kacha: -2, kachi: -2, kache: -2, khushk: -2, pheeka: -2, pheeki: -2, mehnga: -2, mehngi: -2, mehnge: -2,
  der: -2, sust: -2, susti: -2, intezar: -1, badtameez: -3, badtameezi: -3, ghalat: -2, galti: -2, badboo: -3, boo: -1, makhi: -2,
  makhiyan: -2, cockroach: -3, shor: -2, tang: -2, garmi: -1, masla: -1, shikayat: -1, afsos: -2, naraz: -2, takleef: -2,
  bemar: -3, jali: -2, jala: -2, ghanta: -1, ghante: -1, bhool: -2, parwah: 1, zaya: -2, pareshan: -2, daagh: -2, sakht: -1,
  mushkil: -1, kam: -1, bhook: 0, ghatiya: -3, faltu: -2, zaleel: -3, behas: -2, inkaar: -2,
};

export const ROMAN_URDU_PHRASES: Record<string, number> = {
  'paisa wasool': 3, 'hosh ur': -3, 'dobara zaroor': 2, 'dobara nahi': -3, 'kuch khaas nahi': -0.5, 'time pe': 2, 'time par': 2,
  'waqt par': 2, 'waqt pe': 2, 'namak zyada': -2, 'khush akhlaq': 3, 'maza aa gaya': 3, 'maza aya': 3, 'theek thak': 0.5, 'cold drink': 0,
  'garma garam': 2, 'garam garam': 2, 'zyada charge': -2, 'kaam nahi': -2,
};
