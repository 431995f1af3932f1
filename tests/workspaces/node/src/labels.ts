// Shelf labels; lintel's navigation fixture: names after é and 🍰 sit at other columns per encoding.
import { describe, type User } from "./api.js";

export function shelfLabel(user: User): string {
  return "é 🍰 " + describe(user);
}
