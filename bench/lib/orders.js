// The custom order webhook's orders as the benches send them.

/** A menu of 40 dishes: orders share names, as real ones do (the menu sync must not serialise them). */
const MENU = Array.from({ length: 40 }, (_, i) => ({ name: `Dish ${i}`, itemId: `SKU-${i}` }));

/** Order `n` of a bench run (`key` keeps runs apart): 3 items of the menu, amounts written as Pakistani tills do. */
export function benchOrder(key, n) {
  return {
    externalOrderId: `${key}-${n}`,
    externalLocationId: `branch-${n % 5}`,
    total: 'Rs. 1,250.00',
    subtotal: '1,100',
    deliveryCharge: '150',
    currency: 'PKR',
    channel: 'Food Panda',
    payment: n % 2 === 0,
    customerName: 'Bench Customer',
    customerEmail: `Customer${n}@Example.com`,
    customerPhoneNumber: '0300 1234567',
    metadata: { orderType: 'delivery', bench: key },
    items: [0, 1, 2].map((k) => {
      const dish = MENU[(n * 7 + k * 13) % MENU.length];
      return { ...dish, quantity: 1 + k, unitPrice: `Rs. ${100 + k * 50}`, totalPrice: (100 + k * 50) * (1 + k) };
    }),
  };
}
