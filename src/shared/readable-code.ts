/** Upper-case letters and digits that cannot be mistaken for one another when read out or typed (no 0/O, 1/I/L, U/V). */
export const READABLE_ALPHABET = 'ABCDEFGHJKMNPQRSTWXYZ23456789';
