/** The avro family. Importing this module registers its components. */
export {};
