// Lets TypeScript accept the stylesheet imports that esbuild bundles (import "./styles/x.css").
declare module "*.css";
