import { render, screen } from '@testing-library/react';
import { TodoList } from './TodoList';

test('shows open todos', () => {
  render(<TodoList todos={[{ id: '1', title: 'milk', done: false }]} onToggle={jest.fn()} />);
  expect(screen.getByText('milk')).toBeTruthy();
});
