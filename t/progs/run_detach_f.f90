! run_detach_f.f90 - run_detach.c in Fortran ('use mpi'): rank 0 sends
! 1 MiB with MPI_Bsend to rank 1, which never receives it, then detaches
! the buffer: MPI_Buffer_detach waits for the buffered message forever.
program run_detach_f
  use mpi
  implicit none
  integer, parameter :: n = 1048576
  integer :: rank, ierr, sz
  character, allocatable :: b(:), d(:)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    allocate(b(n + MPI_BSEND_OVERHEAD), d(n))
    d = ' '
    call MPI_Buffer_attach(b, n + MPI_BSEND_OVERHEAD, ierr)
    call MPI_Bsend(d, n, MPI_CHARACTER, 1, 5, MPI_COMM_WORLD, ierr) ! mpiwatch: blame -n 2
    call MPI_Buffer_detach(b, sz, ierr)
  end if
  print '(a,i0,a)', 'rank ', rank, ': last line'
  flush(6)
  call MPI_Finalize(ierr)
end program run_detach_f
