const { Cart } = require('./store');

// Cart behaviour under jest.
describe('Cart', () => {
  let cart;

  beforeEach(() => {
    cart = new Cart('ann');
  });

  it('starts empty', () => {
    expect(cart.total()).toBe(0);
  });

  test.each([[1], [2]])('adds %i items', (n) => {
    cart.add({ price: n });
  });

  describe('save', () => {
    it.skip('posts the items', async function () {
      await cart.save();
    });
  });
});

test('version is semver', () => {
  expect(require('./store').version()).toMatch(/\d+\.\d+/);
});
