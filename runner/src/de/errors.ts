/** Input the DE step cannot work with (a programming or upstream-validation error, not a user failure). */
export class DeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeInputError";
  }
}
