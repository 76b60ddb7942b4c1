// eslint's configuration (flat): its recommended rules on the explorer's
// script (ES modules for the browser) and on its tests (node).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/mha/explorer/static/*.js"],
    languageOptions: {globals: globals.browser},
    rules: {eqeqeq: "error"},
  },
  {
    files: ["tests/js/*.js", "eslint.config.js"],
    languageOptions: {globals: globals.node},
  },
];
