import { firstName, render } from './feedback-flow.rules.js';

describe('greeting a guest', () => {
  it.each([
    ['Ayesha Khan', 'Ayesha'],
    ['  Dr. Ayesha   Khan ', 'Ayesha'],
    ['Syed Ali Raza', 'Ali'],
    ['Mr', 'Mr'],
    ['Ayesha', 'Ayesha'],
    [null, ''],
  ])('%j is greeted as %j', (name, greeted) => {
    expect(firstName(name)).toBe(greeted);
  });

  it('renders {{name}} as the first name, {{fullName}} as given, "there" without a name', () => {
    const body = 'Hi {{name}} ({{ fullName }}), order {{orderId}}: {{link}}';
    expect(render(body, { link: 'https://x/r/t', name: 'Dr. Ada Lovelace', orderId: 'A-1' })).toBe('Hi Ada (Dr. Ada Lovelace), order A-1: https://x/r/t');
    expect(render(body, { link: 'https://x/r/t', name: null, orderId: 'A-1' })).toBe('Hi there (there), order A-1: https://x/r/t');
  });
});
