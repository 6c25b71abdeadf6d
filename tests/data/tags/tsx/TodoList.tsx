import React, { useCallback, useMemo } from 'react';
import type { FC, ReactNode } from 'react';
import { Checkbox } from '@ui/forms';
import * as Icons from './icons';

export interface Todo {
  id: string;
  title: string;
  done: boolean;
}

type Props = {
  todos: Todo[];
  onToggle: (id: string) => void;
  footer?: ReactNode;
};

/** One row of the list. */
export const TodoItem: FC<{ todo: Todo; onToggle(id: string): void }> = ({ todo, onToggle }) => (
  <li className={todo.done ? 'done' : undefined}>
    <Checkbox checked={todo.done} onChange={() => onToggle(todo.id)} />
    <Icons.Flag />
    {todo.title}
  </li>
);

export function TodoList({ todos, onToggle, footer }: Props) {
  const open = useMemo(() => todos.filter((t) => !t.done), [todos]);
  const toggle = useCallback((id: string) => onToggle(id), [onToggle]);
  return (
    <>
      <ul>
        {open.map((todo) => (
          <TodoItem key={todo.id} todo={todo} onToggle={toggle} />
        ))}
      </ul>
      {footer ?? <Summary count={open.length} />}
    </>
  );
}

function Summary({ count }: { count: number }) {
  return <p>{pluralize(count, 'item')} left</p>;
}

export class TodoErrorBoundary extends React.Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? <ErrorPage /> : this.props.children;
  }
}

const identity = <T,>(value: T): T => value;
