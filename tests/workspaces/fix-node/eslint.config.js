// Core rules only: each gives eslint's own fixes (safe) or suggestions (unsafe) on the files in src/.
const rules = {
  "prefer-const": "error",
  "no-var": "error",
  eqeqeq: "error",
  semi: "error",
  quotes: ["error", "double"],
  "no-extra-boolean-cast": "error",
  "no-unused-vars": "error",
  "no-console": "warn",
  "no-useless-escape": "error",
  "prefer-template": "error",
  "object-shorthand": "error",
  curly: "error",
  "dot-notation": "error",
  yoda: "error",
  radix: "error",
};

export default [
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { console: "readonly" },
    },
    rules,
  },
];
