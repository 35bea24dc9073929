/*
 * The words of the bench's catalogue (issue 47): a vocabulary of deal titles per category, so a
 * keyword search at a million offers reads realistic text. bench/seed.ts composes each offer's
 * fields from these lists by its number; bench/search-keywords.ts asks for the same words and
 * judges the answers by where the generator put them (its ground truth).
 *
 * - title: `<modifier> <noun> <suffix>`, the noun one of its category's (1 in 10), or one in 500
 *   offers the category's rare noun;
 * - headline: `<another noun of the category> included`;
 * - description: `Enjoy <a third noun> with <advertiser>. <broad word> <broad phrase>.` (each broad
 *   word in 1 description in 10: about 100,000 offers at a million);
 * - advertiser name: `<person>'s <place word>`, some with accents;
 * - fine print: one of a few sentences.
 */

/** Per leaf category (bench/seed.ts LEAF_CATEGORIES order): ten nouns, then one rare noun. */
export const CATEGORY_NOUNS: ReadonlyArray<readonly string[]> = [
  ['sushi', 'pizza', 'burger', 'tacos', 'ramen', 'steak', 'brunch', 'seafood', 'noodles', 'barbecue', 'omakase'],
  ['croissant', 'espresso', 'cupcakes', 'bagels', 'macarons', 'latte', 'pastries', 'sourdough', 'muffins', 'crème brûlée', 'kouign'],
  ['cocktails', 'karaoke', 'wine tasting', 'craft beer', 'whiskey', 'trivia', 'comedy', 'jazz', 'tapas', 'sangria', 'mezcal'],
  ['groceries', 'produce', 'cheese', 'olive oil', 'chocolate', 'coffee beans', 'smoothies', 'kombucha', 'spices', 'honey', 'smörgåsbord'],
  ['massage', 'facial', 'sauna', 'manicure', 'aromatherapy', 'reflexology', 'hammam', 'body wrap', 'hot stone', 'spa day', 'watsu'],
  ['haircut', 'highlights', 'blowout', 'pedicure', 'balayage', 'keratin', 'lashes', 'brows', 'shave', 'nail art', 'microblading'],
  ['yoga', 'pilates', 'boxing', 'spin', 'crossfit', 'bootcamp', 'climbing', 'swimming', 'zumba', 'personal training', 'calisthenics'],
  [
    'teeth whitening',
    'dental cleaning',
    'eye exam',
    'chiropractic',
    'physiotherapy',
    'acupuncture',
    'checkup',
    'invisalign',
    'hearing',
    'vaccination',
    'cryotherapy',
  ],
  ['concert', 'theater', 'musical', 'festival', 'museum', 'ballet', 'opera', 'stand-up', 'hockey', 'baseball', 'philharmonic'],
  [
    'cooking class',
    'pottery',
    'painting',
    'dance lesson',
    'photography',
    'kayaking',
    'surfing',
    'archery',
    'axe throwing',
    'escape room',
    'glassblowing',
  ],
  ['hotel', 'resort', 'cabin', 'cruise', 'road trip', 'bed and breakfast', 'glamping', 'safari', 'getaway', 'ski lodge', 'riad'],
  [
    'trampoline',
    'zoo',
    'aquarium',
    'bowling',
    'mini golf',
    'laser tag',
    'arcade',
    'water park',
    'playground',
    'birthday party',
    'planetarium',
  ],
  ['sneakers', 'jeans', 'jacket', 'sunglasses', 'handbag', 'watch', 'dress', 'boots', 'scarf', 'jewelry', 'cashmere'],
  ['headphones', 'laptop', 'camera', 'speaker', 'smartwatch', 'tablet', 'drone', 'charger', 'keyboard', 'monitor', 'turntable'],
  ['furniture', 'bedding', 'candles', 'plants', 'cookware', 'rugs', 'lighting', 'grill', 'patio', 'mattress', 'terrarium'],
  ['flowers', 'bouquet', 'roses', 'gift basket', 'chocolates', 'balloons', 'engraving', 'perfume', 'greeting cards', 'orchids', 'bonsai'],
  ['oil change', 'car wash', 'detailing', 'tires', 'brakes', 'alignment', 'inspection', 'battery', 'tint', 'tune-up', 'ceramic coating'],
  [
    'cleaning',
    'plumbing',
    'carpet cleaning',
    'gutters',
    'landscaping',
    'painting service',
    'handyman',
    'pest control',
    'moving',
    'roofing',
    'chimney',
  ],
  [
    'tutoring',
    'language course',
    'coding bootcamp',
    'piano lessons',
    'guitar lessons',
    'driving lessons',
    'test prep',
    'workshop',
    'seminar',
    'certificate',
    'calligraphy',
  ],
  [
    'grooming',
    'dog walking',
    'pet sitting',
    'vet visit',
    'kennel',
    'dog training',
    'cat grooming',
    'pet food',
    'aquarium fish',
    'doggy daycare',
    'agility',
  ],
];
/** How many of each category's nouns are common (the rare one follows them). */
export const COMMON_NOUNS = 10;
/** One offer in this many has its category's rare noun in the title. */
export const RARE_EVERY = 500;

/** The title's first word (1 in 20 titles each: about 50,000 offers at a million). */
export const MODIFIERS = [
  'deluxe',
  'classic',
  'premium',
  'family',
  'weekend',
  'signature',
  'ultimate',
  'express',
  'luxury',
  'seasonal',
  'gourmet',
  'vip',
  'private',
  'organic',
  'vintage',
  'holiday',
  'exclusive',
  'unlimited',
  'sunset',
  'midweek',
];
/** The title's last words. */
export const SUFFIXES = ['for two', 'voucher', 'package', 'experience', 'session', 'special', 'pass', 'for four'];
/** One in each description (1 in 10: about 100,000 offers at a million), the broad terms. */
export const BROAD_WORDS = [
  'favorite',
  'neighborhood',
  'friendly',
  'authentic',
  'relaxing',
  'memorable',
  'affordable',
  'downtown',
  'award-winning',
  'cozy',
];
/** The advertiser's name: a person's, then a place word. */
export const PEOPLE = [
  'Tanaka',
  'Chloé',
  'José',
  'Renée',
  'François',
  'Müller',
  'Garcia',
  'Nguyen',
  'Olsen',
  'Zoë',
  'Patel',
  'Rossi',
  'Kowalski',
  'Björk',
  'Núñez',
  'Murphy',
];
export const PLACES = [
  'Kitchen',
  'Studio',
  'Corner',
  'House',
  'Shop',
  'Garage',
  'Lounge',
  'Parlor',
  'Café',
  'Atelier',
  'Workshop',
  'Market',
];
export const FINE_PRINTS = [
  'Valid Monday to Thursday. Not valid with other offers.',
  'Reservation required. Limit one per person.',
  'Gratuity not included. Valid for new customers only.',
  'Appointment required; 24 hours notice to cancel.',
];
/** Two of these end each description (about 50 words in all, as a short real one). */
export const DESCRIPTION_SENTENCES = [
  'Our team has welcomed guests for over ten years and takes pride in every detail of the visit.',
  'Bring a friend or come alone; there is plenty of space and staff are happy to help you choose.',
  'Parking is available nearby and the location is a short walk from public transport.',
  'Each visit is tailored to you, with options for beginners and for those who have done it before.',
  'We use quality materials and equipment, checked and cleaned between every booking.',
  'Gift it to someone special or treat yourself after a long week at work.',
  'Booking is easy online or by phone, and most weeks have openings on short notice.',
  'Reviews praise the attentive service, the relaxed atmosphere and the fair prices.',
];
