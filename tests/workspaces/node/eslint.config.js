// Core rules only (no shared configs), so the fixture's findings stay stable across eslint releases.
import tseslint from "typescript-eslint";

const rules = {
  eqeqeq: "error",
  "no-undef": "error",
  "no-unused-vars": "error",
  "prefer-const": "error",
  "no-console": "warn",
};

export default [
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { console: "readonly", process: "readonly" },
    },
    rules,
  },
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tseslint.parser },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      ...rules,
      // tsc reports undefined names in TypeScript; the core rules misread type-only names.
      "no-undef": "off",
      "no-unused-vars": "off",
      "@typescript-eslint/no-unused-vars": "error",
    },
  },
];
