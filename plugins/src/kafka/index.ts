/** The kafka family. Importing this module registers its components. */
export {};
