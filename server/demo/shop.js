// The demo page's shop: a product list and a cart the page owns, and the tool that lets the chat add to the cart
// (docs/elements.md "Tools the page gives the chat"). The demo agent's `/cart add Tea 2` calls it.
const PRODUCTS = ['Tea', 'Coffee', 'Mug'];
const cart = new Map();
const list = document.getElementById('cart');

function add(product, quantity) {
  cart.set(product, (cart.get(product) ?? 0) + quantity);
  list.replaceChildren(
    ...[...cart].map(([name, n]) => Object.assign(document.createElement('li'), { textContent: `${n} × ${name}` })),
  );
  return { cart: Object.fromEntries(cart) };
}

for (const button of document.querySelectorAll('[data-product]')) {
  button.addEventListener('click', () => add(button.dataset.product, 1));
}

const addToCart = {
  name: 'add_to_cart',
  title: 'Add to cart',
  done: 'Added to cart',
  description: `Adds a product of this shop to the visitor's cart. Products: ${PRODUCTS.join(', ')}.`,
  parameters: {
    type: 'object',
    properties: { product: { enum: PRODUCTS }, quantity: { type: 'integer', minimum: 1, maximum: 99 } },
    required: ['product'],
  },
  handler({ product, quantity = 1 }) {
    const name = PRODUCTS.find((p) => p.toLowerCase() === String(product).toLowerCase());
    if (!name) throw new Error(`this shop has no ${product}; it has ${PRODUCTS.join(', ')}`);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 99) throw new Error('quantity must be 1 to 99');
    return add(name, quantity);
  },
};

// The property is set once the element is defined (the script tag in <head> defines it).
customElements.whenDefined('svc-chat').then(() => {
  for (const chat of document.querySelectorAll('svc-chat')) chat.tools = [addToCart];
});
