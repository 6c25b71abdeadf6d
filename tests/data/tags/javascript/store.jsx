// Cart store and widgets (CommonJS + ES modules mixed, as real bundles are).
import React, { useState as useLocalState, useEffect } from 'react';
import * as api from './api';
import './styles.css';
export { formatPrice, toCents as cents } from './money';
export * from './events';

const EventEmitter = require('events');
const { debounce, throttle: limit } = require('lodash');

/**
 * A shopping cart that emits "change" events.
 */
export class Cart extends EventEmitter {
  #items = [];

  constructor(owner) {
    super();
    this.owner = owner;
  }

  add(item) {
    this.#items.push(item);
    this.emit('change', this.total());
  }

  total() {
    return this.#items.reduce((sum, item) => sum + item.price, 0);
  }

  // Save the cart remotely.
  async save() {
    await api.post('/cart', { items: this.#items });
  }

  onChange = (listener) => {
    this.on('change', debounce(listener, 50));
  };

  static fromJSON(json) {
    const cart = new Cart(json.owner);
    json.items.forEach((item) => cart.add(item));
    return cart;
  }
}

class LoggingCart extends mixins.Logging {}

export default function CartView({ cart }) {
  const [count, setCount] = useLocalState(0);
  useEffect(() => cart.on('change', () => setCount(cart.total())), [cart]);
  return (
    <div className="cart">
      <CartBadge count={count} />
      <ui.Button onClick={() => cart.save()}>Save</ui.Button>
    </div>
  );
}

const CartBadge = ({ count }) => <span>{format(count)}</span>;

function* ids() {
  let id = 0;
  while (true) yield id++;
}

export const helpers = {
  empty() {
    return new Cart(null);
  },
  merge: (a, b) => a.concat(b),
};

Cart.prototype.clear = function () {
  this.#items = [];
};

exports.createCart = function (owner) {
  return new Cart(owner);
};

module.exports.version = () => '1.0';

const limitedSave = limit(() => import('./analytics').then((m) => m.track()), 1000);
