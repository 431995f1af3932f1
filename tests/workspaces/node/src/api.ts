// A small typed API client; the type errors below are deliberate (lintel's fixture).

export interface User {
  id: number;
  name: string;
  email: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}

const greeting = "Bienvenue, café ouvert";

export function describe(user: User): string {
  return `${greeting}: ${user.name} <${user.email}>`;
}

export function firstPage(users: User[]): Page<User> {
  const unusedLimit = 10;
  return { items: users, total: users.length };
}

export function parseId(raw: string): number {
  const id: number = raw;
  return id;
}

export function guest(): User {
  const user: User = { id: 0, name: "guest" };
  return user;
}

export function totalOf(page: Page<User>): number {
  if (page.total == 0) {
    return 0;
  }
  return page.items.length;
}

export function namesPage(users: User[]): Page<User> {
  const page: Page<string> = {
    items: users.map((u) => u.name),
    total: users.length,
  };
  return page;
}
